// In a clone, the packages' TypeScript sources are exported under the `qhatu-source` condition (their
// compiled dist/ otherwise). This resolves with it, here and in the processes started from here.
import { register } from 'node:module';

const CONDITION = '--conditions=qhatu-source';

export function registerSources() {
  if (!(process.env.NODE_OPTIONS ?? '').includes(CONDITION)) {
    process.env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} ${CONDITION}`.trim();
    register('./source-condition.js', import.meta.url);
  }
}
