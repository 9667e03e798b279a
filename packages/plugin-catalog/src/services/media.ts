import { AppError, type Tx } from '@qhatu/core';
import { MediaLibrary } from '@qhatu/plugin-media';
import { inject, injectable, type DependencyContainer, type InjectionToken } from 'tsyringe';

/** The media plugin's service; tsyringe's token type has no place for an abstract class. */
export const MEDIA_LIBRARY = MediaLibrary as InjectionToken<MediaLibrary>;

export interface MediaRef {
  mediaId: string;
  /** Where the id was given, e.g. `body.images.0.media_id`. */
  path: string;
}

/** Media files as the catalog uses them: product images, collection covers, brand logos. */
@injectable()
export class CatalogMedia {
  constructor(@inject(MEDIA_LIBRARY) private readonly library: MediaLibrary) {}

  /** Public URLs of uploaded files of the tenant, in its transaction; any other id is a 422 MEDIA_NOT_FOUND. */
  async urls(tx: Tx, refs: MediaRef[]): Promise<Map<string, string>> {
    if (refs.length === 0) return new Map();
    const urls = await this.library.publicUrls(tx, [...new Set(refs.map((r) => r.mediaId))]);
    const missing = refs.filter((r) => !urls.has(r.mediaId));
    if (missing.length > 0) {
      throw AppError.unprocessable(
        'MEDIA_NOT_FOUND',
        `Media file ${missing[0].mediaId} does not exist or is not uploaded`,
        missing.map((r) => ({ path: r.path, message: 'is not an uploaded media file of this store' })),
      );
    }
    return urls;
  }

  /** The URL of one optional file: null stays null. */
  async urlOf(tx: Tx, mediaId: string | null | undefined, path: string): Promise<string | null> {
    if (!mediaId) return null;
    return (await this.urls(tx, [{ mediaId, path }])).get(mediaId)!;
  }
}

/** Something of the catalog that shows media files and lets go of one that is being deleted. */
export interface MediaUser {
  detachMedia(tx: Tx, mediaId: string): Promise<void>;
}

/** Registers, with the media plugin, the step that detaches a file from the catalog in the deleting transaction. */
export function detachDeletedMedia(container: DependencyContainer, users: Array<InjectionToken<MediaUser>>): void {
  container.resolve(MEDIA_LIBRARY).onDelete(async (tx, mediaId) => {
    for (const user of users) await container.resolve(user).detachMedia(tx, mediaId);
  });
}
