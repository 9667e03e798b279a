import { APP_ROLE, type Migration } from '@qhatu/core';

/**
 * Payment sessions are numbered from one sequence shared by every store and every server, for
 * providers that want a numeric purchase number unique per merchant (Niubiz, Pay-me). Seven digits
 * from the start, since some want six or more.
 */
export const sessionNumberMigration: Migration = {
  id: '0004_payment_session_number',
  up: [
    `CREATE SEQUENCE payments_session_number AS bigint START WITH 1000000 NO CYCLE`,
    `GRANT USAGE ON SEQUENCE payments_session_number TO ${APP_ROLE}`,
    `ALTER TABLE payments_session ADD COLUMN number bigint`,
  ],
};
