import { afterEach } from 'vitest';
import type { TestHub } from '../helpers/hub.js';
import { startReceiver, type Receiver } from './delivery-helpers.js';

/**
 * The clean-up every delivery test needs: after each test the hub `current()` names is disposed
 * (and `clear()` forgets it), and every receiver started through the returned function is closed.
 * The hub stays the test file's own variable, so its helpers can read it.
 */
export function closeAfterEach(
  current: () => TestHub | undefined,
  clear: () => void,
): (...args: Parameters<typeof startReceiver>) => Promise<Receiver> {
  const receivers: Receiver[] = [];
  afterEach(async () => {
    await current()?.dispose();
    clear();
    await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
  });
  return async (...args) => {
    const started = await startReceiver(...args);
    receivers.push(started);
    return started;
  };
}
