// A module resolution hook: resolve with the `qhatu-source` condition (see sources.js).
export async function resolve(specifier, context, next) {
  if (context.conditions.includes('qhatu-source')) return next(specifier, context);
  return next(specifier, { ...context, conditions: [...context.conditions, 'qhatu-source'] });
}
