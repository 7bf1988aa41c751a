import { reactive } from 'vue';

/**
 * The one fresh-proof dialog of the console (components/ReauthDialog.vue, in App.vue).
 * The request layer (api/request.ts) opens it when an answer says REAUTH_REQUIRED and waits for it.
 */
export const reauthState = reactive({ open: false });

let settleOpen: ((proven: boolean) => void) | null = null;

/** Opens the dialog; resolves true once the user proved who they are, false when they gave up. */
export function askForProof(): Promise<boolean> {
  settleOpen?.(false);
  reauthState.open = true;
  return new Promise<boolean>((resolve) => {
    settleOpen = resolve;
  });
}

/** Closes the dialog with its outcome (also when the session ends meanwhile: false). */
export function settleProof(proven: boolean): void {
  reauthState.open = false;
  const settle = settleOpen;
  settleOpen = null;
  settle?.(proven);
}
