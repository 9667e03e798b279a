import type { Tx } from '@qhatu/core';

/**
 * What other plugins may ask of media files: the service the media plugin registers under this
 * class as token. Everything runs inside the caller's tenant transaction.
 */
export abstract class MediaLibrary {
  /** Public URLs of the given files of the transaction's tenant that are `uploaded`; other ids are absent. */
  abstract publicUrls(tx: Tx, ids: string[]): Promise<Map<string, string>>;
  /**
   * Adds a step to the transaction that deletes a media file, so that records using it (a
   * product image, a collection cover, a brand logo) are detached before it goes.
   */
  abstract onDelete(step: (tx: Tx, mediaId: string) => Promise<void>): void;
}
