import { dropTestDatabases } from './databases.js';

/** Before the run: drop test databases that killed runs left behind. */
export async function setup(): Promise<void> {
  await dropTestDatabases();
}
