import { dropTestDatabases } from './databases.js';

/** Before the run: forget test databases (and templates) of earlier runs. After it: drop this run's. */
export async function setup(): Promise<void> {
  await dropTestDatabases({ templates: true });
}

export async function teardown(): Promise<void> {
  await dropTestDatabases();
}
