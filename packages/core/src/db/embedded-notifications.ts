/**
 * NOTIFY on the embedded database. PGlite is one session: a LISTEN sent by any connection makes
 * the session listen, and a notification comes out in the answer of whichever connection's
 * statement committed it. This router takes NotificationResponse messages out of every answer
 * and hands them to the connections that sent LISTEN for their channel, as a server would: the
 * job queue's workers wait on LISTEN for new jobs (decision 0050).
 */

const QUERY = 0x51; // 'Q'
const PARSE = 0x50; // 'P'
const NOTIFICATION = 0x41; // 'A'
const LISTEN = /\b(UN)?LISTEN\s+("[^"]+"|[\w.$]+|\*)/gi;

/** Splits one connection's answers into its own messages and the notifications among them (kept across chunks). */
class AnswerFraming {
  private phase: 'type' | 'length' | 'body' = 'type';
  private lengthBytes: number[] = [];
  private left = 0;
  private kept: Buffer[] | null = null;

  /** The bytes of `chunk` that are not notifications; each whole notification goes to `found`, and stays in them when it says so. */
  split(chunk: Uint8Array, found: (message: Buffer) => boolean): Buffer {
    const data = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const own: Buffer[] = [];
    let from = 0;
    let at = 0;
    // `chunk` may be a view of PGlite's memory, written over by the next one: a notification's parts are copied.
    const cut = (to: number) => {
      if (to > from) {
        if (this.kept) this.kept.push(Buffer.from(data.subarray(from, to)));
        else own.push(data.subarray(from, to));
      }
      from = to;
    };
    while (at < data.length) {
      if (this.phase === 'type') {
        if (data[at] === NOTIFICATION) {
          cut(at);
          this.kept = [];
        }
        this.phase = 'length';
        this.lengthBytes = [];
        at++;
      } else if (this.phase === 'length') {
        this.lengthBytes.push(data[at++]!);
        if (this.lengthBytes.length === 4) {
          this.left = Buffer.from(this.lengthBytes).readInt32BE(0) - 4;
          this.phase = 'body';
        }
      } else {
        const n = Math.min(this.left, data.length - at);
        at += n;
        this.left -= n;
      }
      if (this.phase === 'body' && this.left === 0) {
        this.phase = 'type';
        if (this.kept) {
          cut(at);
          const message = Buffer.concat(this.kept);
          this.kept = null;
          if (found(message)) own.push(message);
        }
      }
    }
    cut(at);
    return own.length === 1 ? own[0]! : Buffer.concat(own);
  }
}

/** The channel a NotificationResponse is for: after the type, the length and the sender's pid, a C string. */
function channelOf(message: Buffer): string {
  const end = message.indexOf(0, 9);
  return message.toString('utf8', 9, end);
}

export class NotificationRouter {
  private readonly listeners = new Map<string, Set<number>>();
  private readonly framing = new Map<number, AnswerFraming>();

  /** @param write sends bytes to a connection, if it is still there. */
  constructor(private readonly write: (handlerId: number, data: Uint8Array) => void) {}

  /** Notes the channels a connection's query starts or stops listening to. */
  noteQuery(handlerId: number, message: Uint8Array): void {
    const type = message[0];
    if (type !== QUERY && type !== PARSE) return;
    const text = Buffer.from(message.buffer, message.byteOffset, message.byteLength);
    if (text.indexOf('LISTEN') === -1 && text.indexOf('listen') === -1) return;
    for (const [, un, name] of text.toString('utf8', 5).matchAll(LISTEN)) {
      const channel = name!.startsWith('"') ? name!.slice(1, -1) : name!.toLowerCase();
      if (!un) this.listenersOf(channel).add(handlerId);
      else if (channel === '*') for (const set of this.listeners.values()) set.delete(handlerId);
      else this.listeners.get(channel)?.delete(handlerId);
    }
  }

  /** What of `data`, answered to `handlerId`, is its own; notifications in it go to their listeners. */
  answer(handlerId: number, data: Uint8Array): Uint8Array {
    let framing = this.framing.get(handlerId);
    if (!framing) this.framing.set(handlerId, (framing = new AnswerFraming()));
    return framing.split(data, (message) => {
      let mine = false;
      for (const listener of this.listeners.get(channelOf(message)) ?? []) {
        // The answering connection gets it in its answer, in order; the others between their answers.
        if (listener === handlerId) mine = true;
        else this.write(listener, message);
      }
      return mine;
    });
  }

  /** A connection went away. */
  forget(handlerId: number): void {
    this.framing.delete(handlerId);
    for (const set of this.listeners.values()) set.delete(handlerId);
  }

  private listenersOf(channel: string): Set<number> {
    let set = this.listeners.get(channel);
    if (!set) this.listeners.set(channel, (set = new Set()));
    return set;
  }
}
