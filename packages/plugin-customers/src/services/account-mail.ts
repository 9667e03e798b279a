import type { MailDefinition } from '@qhatu/core';

/** What a registration sends to the address it names; the caller never learns which one it was. */
export type AccountMailKind = 'link' | 'has-account' | 'disabled';

/** The mail of each kind, as the store may write it per locale (`/api/v1/mail-texts`, decision 0098). */
export const ACCOUNT_MAIL_KEYS: Record<AccountMailKind, string> = {
  link: 'customers.account-link',
  'has-account': 'customers.account-exists',
  disabled: 'customers.account-unavailable',
};

const STORE = { store: "The store's name" };

/** The e-mails a registration sends, with the placeholders a store's text of each may use. */
export const ACCOUNT_MAILS: MailDefinition[] = [
  {
    key: ACCOUNT_MAIL_KEYS.link,
    description: 'A registration of a new address (or of a customer the store created): the single-use link that finishes it',
    variables: {
      ...STORE,
      link: 'The account link: opening it lets the customer choose a password (it works once)',
      expires_at: 'When the link stops working, in UTC (2026-05-01 14:30)',
      email: 'The address registered',
    },
  },
  {
    key: ACCOUNT_MAIL_KEYS['has-account'],
    description: 'A registration of an address that already has an account: no link, a note to sign in',
    variables: { ...STORE, email: 'The address registered' },
  },
  {
    key: ACCOUNT_MAIL_KEYS.disabled,
    description: 'A registration of the address of a disabled customer: no link, a note to contact the store',
    variables: { ...STORE, email: 'The address registered' },
  },
];

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const NOT_YOU = 'If you did not ask for this, ignore this e-mail: nothing changes.';

/** The values of a registration mail's placeholders. */
export function accountMailVariables(input: { store: string; email: string; link?: string; expiresAt?: Date }) {
  return {
    store: input.store,
    email: input.email,
    link: input.link,
    expires_at: input.expiresAt ? input.expiresAt.toISOString().replace('T', ' ').slice(0, 16) : undefined,
  };
}

/** The built-in e-mail of a registration (a store without a text of its own sends it): the link that finishes it, or why there is none. */
export function accountMail(input: { kind: AccountMailKind; store: string; link?: string; expiresAt?: Date }) {
  const { kind, store, link, expiresAt } = input;
  if (kind === 'link') {
    const until = expiresAt!.toISOString().replace('T', ' ').slice(0, 16);
    const lines = [
      `Someone asked to open an account at ${store} with this e-mail address.`,
      'To choose your password and finish, open this link (it works once):',
    ];
    return {
      subject: `${store}: finish setting up your account`,
      text: ['Hello,', '', ...lines, '', link!, '', `The link works until ${until} UTC.`, NOT_YOU].join('\n'),
      html: [
        '<p>Hello,</p>',
        ...lines.map((l) => `<p>${escapeHtml(l)}</p>`),
        `<p><a href="${escapeHtml(link!)}">Choose your password</a></p>`,
        `<p>The link works until ${escapeHtml(until)} UTC. ${escapeHtml(NOT_YOU)}</p>`,
      ].join('\n'),
    };
  }
  const body =
    kind === 'has-account'
      ? [`Someone asked to open an account at ${store} with this e-mail address, but it already has one.`, 'Sign in with your password.']
      : [`Someone asked to open an account at ${store} with this e-mail address, but it cannot have one.`, 'Contact the store if you think this is a mistake.'];
  return {
    subject: `${store}: about your account`,
    text: ['Hello,', '', ...body, '', NOT_YOU].join('\n'),
    html: ['<p>Hello,</p>', ...body.map((l) => `<p>${escapeHtml(l)}</p>`), `<p>${escapeHtml(NOT_YOU)}</p>`].join('\n'),
  };
}
