/** Resolves a media file id to its public URL; the media plugin provides the real one. */
export interface MediaResolver {
  /** The public URL of an uploaded file of the current tenant, or null when there is none. */
  urlOf(mediaId: string): Promise<string | null>;
}

export const ProductMedia = Symbol.for('qhatu.catalog.media-resolver');

/** Without a media plugin no media file exists, so every media_id is unknown. */
export const noMedia: MediaResolver = {
  urlOf: async () => null,
};
