import { definePlugin } from '@qhatu/core';
import { blogAdmin } from './admin.js';
import { BlogPost } from './entities/post.js';
import { postMachine } from './machines/post.js';
import { postsMigration } from './migrations/0001_posts.js';
import { postSearchMigration } from './migrations/0002_search.js';
import { postTranslationsMigration } from './migrations/0003_translations.js';
import { postTranslationRoutes } from './routes/translations.js';
import { PostTranslations, TRANSLATION_EVENTS } from './services/translations.js';
import { postRoutes } from './routes/posts.js';
import { POST_EVENTS } from './services/events.js';
import { PostReads } from './services/post-reads.js';
import { Posts } from './services/posts.js';

export { BlogPost, POST_STATUSES, type PostStatus } from './entities/post.js';
export { postMachine } from './machines/post.js';
export { Posts } from './services/posts.js';
export { PostReads, type Reader } from './services/post-reads.js';
export { PostTranslations, BLOG_TRANSLATIONS } from './services/translations.js';
export { CONTENT_ALLOW_LIST, sanitizeContent } from './services/content.js';
export { POST_EVENTS } from './services/events.js';
export { postOut } from './routes/posts.js';

/** The blog: posts with sanitized HTML and unique slugs, drafted, published and archived, and translated. */
export default definePlugin({
  name: 'blog',
  // Its pages and widgets in the admin dashboard.
  admin: blogAdmin,
  entities: [BlogPost],
  migrations: [postsMigration, postSearchMigration, postTranslationsMigration],
  machines: [postMachine],
  events: [...POST_EVENTS, ...TRANSLATION_EVENTS],
  permissions: [
    { name: 'blog.read', description: 'See every blog post, drafts and archived ones included' },
    { name: 'blog.write', description: 'Write, edit and archive blog posts' },
    { name: 'blog.publish', description: 'Publish draft blog posts' },
  ],
  register(container) {
    container.registerSingleton(Posts);
    container.registerSingleton(PostReads);
    container.registerSingleton(PostTranslations);
  },
  routes: async (app, { container }) => {
    await postRoutes(app, container);
    await postTranslationRoutes(app, container);
  },
});
