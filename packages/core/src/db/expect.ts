/** The SQLSTATE `expectSql`'s guard raises when its condition does not hold. */
export const EXPECTATION_FAILED = 'QHX01';

/**
 * An SQL expression for a statement's select list that raises `EXPECTATION_FAILED` (aborting the
 * transaction and whatever follows it in the round trip) unless `conditionSql` is true: a write
 * sent on what a process kept, behind a check that the database still holds it.
 */
export function expectSql(conditionSql: string, what: string): string {
  return `core_expect(${conditionSql}, '${what.replace(/'/g, "''")}')`;
}

/** Whether `error` is `expectSql`'s guard failing (PostgreSQL's error, as the driver throws it). */
export function isExpectationFailure(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === EXPECTATION_FAILED;
}

/** The core migration's statement: the function `expectSql` calls. */
export const expectFunction = [
  `CREATE FUNCTION core_expect(ok boolean, what text) RETURNS boolean LANGUAGE plpgsql AS $$
   BEGIN
     IF ok IS NOT TRUE THEN RAISE EXCEPTION USING ERRCODE = '${EXPECTATION_FAILED}', MESSAGE = what; END IF;
     RETURN true;
   END $$`,
];
