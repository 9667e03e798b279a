import { note } from './output.js';

/**
 * Resolves on the first SIGINT or SIGTERM so the command can close cleanly;
 * a second signal means "now": the process exits at once.
 */
export function shutdownSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    let received = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (received) {
        note(`${signal} again: exiting without waiting for shutdown`);
        process.exit(1);
      }
      received = true;
      note(`${signal} received: shutting down (send it again to exit at once)`);
      resolve(signal);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}
