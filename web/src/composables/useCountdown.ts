import { computed, onBeforeUnmount, ref } from 'vue';

/**
 * The wait before a code can be sent again (the service takes one send a minute): start() after a
 * send; `left` counts the seconds down, `running` is true until it reaches 0.
 */
export function useCountdown(seconds = 60) {
  const left = ref(0);
  let timer: ReturnType<typeof setInterval> | undefined;
  const stop = () => {
    if (timer) clearInterval(timer);
    timer = undefined;
    left.value = 0;
  };
  const start = () => {
    stop();
    left.value = seconds;
    timer = setInterval(() => {
      left.value -= 1;
      if (left.value <= 0) stop();
    }, 1000);
  };
  onBeforeUnmount(stop);
  return { left, running: computed(() => left.value > 0), start, stop };
}
