import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadConfig, Secrets } from '../src/index.js';

function secretsWith(env: Record<string, string>): Secrets {
  return new Secrets(loadConfig({ QHATU_ENV: 'development', ...env }));
}

/** Every spelling of `sealed` with one character of the given part replaced by another of the alphabet. */
function oneCharacterOff(sealed: string, part: number): string[] {
  const parts = sealed.split('.');
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  return [...parts[part]].map((c, i) => {
    const other = alphabet[(alphabet.indexOf(c) + 1) % alphabet.length];
    const changed = [...parts];
    changed[part] = parts[part].slice(0, i) + other + parts[part].slice(i + 1);
    return changed.join('.');
  });
}

describe('Secrets', () => {
  const secrets = secretsWith({ QHATU_SECRET_KEY: randomBytes(32).toString('base64') });

  it('opens what it sealed, with a fresh nonce each time', () => {
    const a = secrets.seal('sk_live_ünïcode');
    const b = secrets.seal('sk_live_ünïcode');
    expect(a).not.toBe(b);
    expect(a.startsWith('v1.')).toBe(true);
    expect(secrets.open(a)).toBe('sk_live_ünïcode');
    expect(secrets.open(secrets.seal(''))).toBe('');
  });

  it('refuses every altered character of the nonce, the tag and the body, in one canonical spelling', () => {
    const sealed = secrets.seal('{"p":"cart-recovery","c":"a cart"}');
    for (const part of [1, 2, 3]) {
      for (const altered of oneCharacterOff(sealed, part)) expect(() => secrets.open(altered), altered).toThrow();
    }
    // Characters the decoder would skip, and a stray version.
    const [, iv, tag, body] = sealed.split('.');
    expect(() => secrets.open(`v1.${iv}.${tag}.${body}=`)).toThrow();
    expect(() => secrets.open(`v1.${iv}.${tag}.${body.slice(0, 4)}!${body.slice(4)}`)).toThrow();
    expect(() => secrets.open(`v2.${iv}.${tag}.${body}`)).toThrow('Not a sealed secret');
    expect(() => secrets.open('nonsense')).toThrow('Not a sealed secret');
  });

  it('cannot open what another key sealed', () => {
    const other = secretsWith({ QHATU_SECRET_KEY: randomBytes(32).toString('base64') });
    expect(() => other.open(secrets.seal('secret'))).toThrow();
  });

  it('derives its key from the platform token when no key is set, and refuses a key of the wrong size', () => {
    const a = secretsWith({ QHATU_PLATFORM_TOKEN: 'platform-token-of-at-least-32-characters!!' });
    const b = secretsWith({ QHATU_PLATFORM_TOKEN: 'platform-token-of-at-least-32-characters!!' });
    expect(b.open(a.seal('shared'))).toBe('shared');
    expect(() => secretsWith({ QHATU_SECRET_KEY: randomBytes(16).toString('base64') })).toThrow('32 bytes');
  });
});
