import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, Passwords } from '../src/index.js';

/** The scrypt cost of new password hashes: OWASP's by default and in production; cheaper only outside it. */
describe('QHATU_PASSWORD_COST', () => {
  it('is 15 unless set, and a production store refuses less', () => {
    expect(loadConfig({ QHATU_ENV: 'development' }).passwordCost).toBe(15);
    expect(loadConfig({ QHATU_ENV: 'development', QHATU_PASSWORD_COST: '10' }).passwordCost).toBe(10);
    const production = { QHATU_ENV: 'production', QHATU_PLATFORM_TOKEN: 'p'.repeat(32) };
    expect(loadConfig({ ...production, QHATU_PASSWORD_COST: '16' }).passwordCost).toBe(16);
    expect(() => loadConfig({ ...production, QHATU_PASSWORD_COST: '12' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...production, QHATU_PASSWORD_COST: '12' })).toThrow(/QHATU_PASSWORD_COST: at least 15/);
    expect(() => loadConfig({ QHATU_ENV: 'development', QHATU_PASSWORD_COST: '9' })).toThrow(/QHATU_PASSWORD_COST/);
  });

  it('is stored with each hash, so hashes made at another cost still verify', async () => {
    const cheap = new Passwords({ passwordCost: 10 });
    const store = new Passwords({ passwordCost: 15 });
    const old = await cheap.hash('alpaca wool 2026');
    const made = await store.hash('alpaca wool 2026');
    expect(old).toMatch(/^scrypt\$ln=10,r=8,p=3\$/);
    expect(made).toMatch(/^scrypt\$ln=15,r=8,p=3\$/);
    expect(await store.verify('alpaca wool 2026', old)).toBe(true);
    expect(await cheap.verify('alpaca wool 2026', made)).toBe(true);
    expect(await store.verify('alpaca wool 2025', old)).toBe(false);
    expect(await store.verify('alpaca wool 2026', null)).toBe(false);
  });
});
