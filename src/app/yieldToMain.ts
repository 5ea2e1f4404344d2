/**
 * Gives the main thread back to the browser for a moment (input, paint) before the
 * next piece of start-up work: a slow phone then never runs the whole start-up as
 * one long task. `scheduler.yield` where the browser has it (the continuation runs
 * before other queued tasks), otherwise a new task.
 */
export function yieldToMain(): Promise<void> {
  const scheduler = (globalThis as { scheduler?: { yield?: () => Promise<void> } }).scheduler;
  if (typeof scheduler?.yield === 'function') return scheduler.yield();
  return new Promise((resolve) => setTimeout(resolve, 0));
}
