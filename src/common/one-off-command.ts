/**
 * True in the context of a one-off command run on the server (admin:recover, audit:verify), false
 * in the service. A provider whose start-up advice is meant for the service's log (not for a
 * command's output, which scripts read) asks for it.
 */
export const ONE_OFF_COMMAND = Symbol('ONE_OFF_COMMAND');
