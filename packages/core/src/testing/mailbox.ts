import type { AddressInfo } from 'node:net';

/**
 * smtp-server and mailparser are optional peer dependencies of @qhatu/core: only a test that starts
 * a mailbox needs them, so they are loaded here rather than with `@qhatu/core/testing`.
 */
async function mailLibraries(): Promise<{ SMTPServer: typeof import('smtp-server').SMTPServer; simpleParser: typeof import('mailparser').simpleParser }> {
  try {
    const [{ SMTPServer }, { simpleParser }] = await Promise.all([import('smtp-server'), import('mailparser')]);
    return { SMTPServer, simpleParser };
  } catch (error) {
    throw new Error(`startMailbox() needs the smtp-server and mailparser packages: add them to your devDependencies (${(error as Error).message})`, { cause: error });
  }
}

/** A message as the SMTP server received it, parsed. */
export interface ReceivedMail {
  /** The envelope's sender and recipients. */
  from: string;
  to: string[];
  subject: string;
  /** The text part, decoded. */
  text: string;
  html: string;
  /** A header's value, e.g. `header('x-qhatu-tenant')`. */
  header(name: string): string | undefined;
  attachments: Array<{ filename: string | undefined; contentType: string; content: Buffer }>;
  raw: string;
}

export interface Mailbox {
  /** `SMTP_URL` for the app under test. */
  url: string;
  received: ReceivedMail[];
  /** The messages sent to `address` so far. */
  to(address: string): ReceivedMail[];
  /** The first message (already received or yet to come) that `match` takes; fails after `timeoutMs`. */
  next(match?: (mail: ReceivedMail) => boolean, timeoutMs?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

/** A real SMTP server on 127.0.0.1 that keeps and parses what it receives: the e-mail side of a test. */
export async function startMailbox(): Promise<Mailbox> {
  const { SMTPServer, simpleParser } = await mailLibraries();
  const received: ReceivedMail[] = [];
  const waiting = new Set<() => void>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks);
        simpleParser(raw).then(
          (parsed) => {
            received.push({
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
              to: session.envelope.rcptTo.map((r) => r.address),
              subject: parsed.subject ?? '',
              text: parsed.text ?? '',
              html: typeof parsed.html === 'string' ? parsed.html : '',
              header: (name) => {
                const value = parsed.headers.get(name.toLowerCase());
                return value === undefined ? undefined : String(value);
              },
              attachments: parsed.attachments.map((a) => ({ filename: a.filename, contentType: a.contentType, content: a.content })),
              raw: raw.toString('utf8'),
            });
            for (const wake of waiting) wake();
            callback();
          },
          (error: Error) => callback(error),
        );
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    to: (address) => received.filter((m) => m.to.includes(address)),
    next(match = () => true, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const look = () => {
          const found = received.find(match);
          if (!found) return false;
          waiting.delete(wake);
          clearTimeout(timer);
          resolve(found);
          return true;
        };
        const wake = () => void look();
        const timer = setTimeout(() => {
          waiting.delete(wake);
          reject(new Error(`no matching e-mail within ${timeoutMs} ms (${received.length} received)`));
        }, timeoutMs);
        if (!look()) waiting.add(wake);
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
