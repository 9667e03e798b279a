/** What a registration sends to the address it names; the caller never learns which one it was. */
export type AccountMailKind = 'link' | 'has-account' | 'disabled';

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const NOT_YOU = 'If you did not ask for this, ignore this e-mail: nothing changes.';

/** The e-mail of a registration: the link that finishes it, or why there is none. */
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
