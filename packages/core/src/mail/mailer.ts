import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { inject, injectable } from 'tsyringe';
import type { QhatuConfig } from '../config.js';
import { leavesDatabase } from '../db/retry.js';
import { onFirstUse } from '../on-first-use.js';
import { CLOCK, CONFIG, LOGGER, type Clock } from '../tokens.js';

export const DEFAULT_MAIL_FROM = 'Qhatu <no-reply@localhost>';

export interface MailMessage {
  /** One address or several (`a@x, b@y` or an array). */
  to: string | string[];
  subject: string;
  text: string;
  html?: string;
  /** Files sent with the message (a quote's PDF and the like). */
  attachments?: MailAttachment[];
  /** The tenant the message is sent for: the folder of the `.eml` file, and an `X-Qhatu-Tenant` header. */
  tenantId: string;
}

export interface MailAttachment {
  filename: string;
  content: Buffer;
  contentType: string;
}

export interface SentMail {
  /** The Message-ID header (with its angle brackets). */
  messageId: string;
  /** `file` when written to the data folder, `smtp` when handed to the SMTP server. */
  transport: 'file' | 'smtp';
  /** The `.eml` file written (file transport only). */
  file?: string;
}

const TENANT_FOLDER = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Outgoing e-mail. Without `SMTP_URL` every message is written as an RFC 5322 `.eml` file to
 * `<data dir>/mail/<tenant>/<timestamp>-<id>.eml` (development, tests); with it, it goes through
 * nodemailer's SMTP transport. The sender is `QHATU_MAIL_FROM` (default `Qhatu <no-reply@localhost>`).
 * nodemailer is loaded by the first message, not when the process starts.
 */
@injectable()
export class Mailer {
  readonly from: string;
  /** The SMTP transport (with `SMTP_URL`) and the one that writes `.eml` files, made by the first message. */
  private readonly transport = onFirstUse(() =>
    import('nodemailer').then(({ createTransport }) => ({
      ...(this.config.smtpUrl ? { smtp: createTransport(this.config.smtpUrl) } : {}),
      composer: createTransport({ streamTransport: true, buffer: true, newline: 'windows' }),
    })),
  );
  /** Whether a message asked for the transports (closing does not load nodemailer to close nothing). */
  private used = false;

  constructor(
    @inject(CONFIG) private readonly config: QhatuConfig,
    @inject(CLOCK) private readonly clock: Clock,
    @inject(LOGGER) private readonly logger: Logger,
  ) {
    this.from = config.environment.QHATU_MAIL_FROM?.trim() || DEFAULT_MAIL_FROM;
  }

  /** Where the file transport writes a tenant's messages. */
  folderOf(tenantId: string): string {
    if (!TENANT_FOLDER.test(tenantId)) throw new Error('A mail tenant id must be a plain identifier');
    return path.resolve(this.config.dataDir, 'mail', tenantId);
  }

  async send(message: MailMessage): Promise<SentMail> {
    // A message sent is not taken back by a rollback: a transaction sending it is not run again.
    leavesDatabase();
    const folder = this.folderOf(message.tenantId);
    const id = randomUUID();
    const at = this.clock.now();
    const options = {
      from: this.from,
      to: message.to,
      subject: message.subject,
      text: message.text,
      ...(message.html === undefined ? {} : { html: message.html }),
      ...(message.attachments?.length ? { attachments: message.attachments.map((a) => ({ filename: a.filename, content: a.content, contentType: a.contentType })) } : {}),
      date: at,
      messageId: `<${id}@qhatu>`,
      headers: { 'X-Qhatu-Tenant': message.tenantId },
    };
    this.used = true;
    const { smtp, composer } = await this.transport();
    if (smtp) {
      const info = await smtp.sendMail(options);
      this.logger.debug({ messageId: info.messageId, tenantId: message.tenantId }, 'mail sent over SMTP');
      return { messageId: String(info.messageId), transport: 'smtp' };
    }
    const built = await composer.sendMail(options);
    await mkdir(folder, { recursive: true });
    const file = path.join(folder, `${at.toISOString().replace(/[:.]/g, '-')}-${id}.eml`);
    await writeFile(file, built.message as Buffer, { flag: 'wx' });
    this.logger.debug({ file, tenantId: message.tenantId }, 'mail written');
    return { messageId: String(built.messageId), transport: 'file', file };
  }

  /** Closes the SMTP connections, if any. */
  close(): void {
    if (this.used) void this.transport().then(({ smtp }) => smtp?.close(), () => undefined);
  }
}
