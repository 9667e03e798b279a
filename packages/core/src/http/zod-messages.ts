import { z } from 'zod';

/** Keys allowed by the object schema that refused a key, when zod hands it to us. */
function allowedKeys(inst: unknown): string[] | undefined {
  const shape = (inst as { _zod?: { def?: { shape?: Record<string, unknown> } } } | undefined)?._zod?.def?.shape;
  return shape ? Object.keys(shape) : undefined;
}

/**
 * One message for an unknown key at any depth: which key, and which keys the object takes
 * (`Unrecognized key "colour"; allowed keys: title, sku, price`). Other issues keep zod's words.
 */
z.config({
  customError: (issue) => {
    if (issue.code !== 'unrecognized_keys') return undefined;
    const keys = issue.keys.map((k) => `"${k}"`).join(', ');
    const allowed = allowedKeys(issue.inst);
    const head = `Unrecognized key${issue.keys.length === 1 ? '' : 's'} ${keys}`;
    return allowed?.length ? `${head}; allowed keys: ${allowed.join(', ')}` : head;
  },
});
