import { describeFailure } from './errors.js';
import { flushOutput, note } from './output.js';
import { buildProgram } from './program.js';

// Entry point of bin/qhatu.js: 0 when the command succeeded, 1 with a readable message when not.
let code = 0;
try {
  await buildProgram().parseAsync(process.argv);
} catch (error) {
  for (const line of describeFailure(error)) note(line);
  code = 1;
}
await flushOutput();
process.exit(code);
