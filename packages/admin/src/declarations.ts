import { z } from 'zod';
import type { QhatuPlugin } from '@qhatu/core';

/** A text in the dashboard's languages: English is required, Spanish falls back to it. */
const Text = z.object({ en: z.string().min(1).max(80), es: z.string().min(1).max(80).optional() }).strict();

/**
 * A path of the store's own API the dashboard reads or posts to: same origin, under `/api/` or
 * `/admin/`, with `{id}` standing for the record the zone shows (a widget) or the row (an action).
 */
const ApiPath = z
  .string()
  .max(300)
  .regex(/^\/(api|admin)\/[A-Za-z0-9_\-./{}[\]=&?]*$/, 'must be a path of the store under /api/ or /admin/')
  .refine((path) => !path.includes('..') && !path.includes('//'), 'must not climb out of the API');

const Permission = z.string().regex(/^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)+$/, 'must be a permission name such as reviews.read');

const Column = z.object({ field: z.string().regex(/^[a-z_][a-z0-9_.]*$/i), label: Text }).strict();

/** An action on a row: a POST (or PATCH, DELETE) to a path, shown to those holding its permission. */
const Action = z
  .object({
    label: Text,
    method: z.enum(['POST', 'PATCH', 'DELETE']).default('POST'),
    path: ApiPath,
    /** A fixed body sent with it (`{"status": "active"}`). */
    body: z.record(z.string().regex(/^[a-z_][a-z0-9_]*$/i), z.union([z.string().max(200), z.number(), z.boolean(), z.null()])).optional(),
    permission: Permission.optional(),
    /** Shown only on rows whose `status` is one of these. */
    when_status: z.array(z.string()).optional(),
  })
  .strict();

/** A field of a declared form: its value is sent under `name`, a number for `number` (whole) and `decimal`. */
const FormField = z
  .object({
    name: z.string().regex(/^[a-z_][a-z0-9_]*$/i),
    label: Text,
    type: z.enum(['text', 'email', 'number', 'decimal', 'select']).default('text'),
    required: z.boolean().default(false),
    /** The choices of a `select`. */
    options: z.array(z.string().min(1).max(80)).min(1).max(30).optional(),
    hint: Text.optional(),
  })
  .strict()
  .refine((f) => (f.type === 'select') === (f.options !== undefined), { path: ['options'], message: 'are given for a select, and only for one' });

/** A form above a list that adds a row: its fields' values POSTed to `path` (empty fields left out). */
const CreateForm = z
  .object({ label: Text, path: ApiPath, permission: Permission.optional(), fields: z.array(FormField).min(1).max(12) })
  .strict();

/** What a page or a widget shows: the rows of a list endpoint (cursor pages), with their actions. */
const ListView = z
  .object({
    type: z.literal('list'),
    source: ApiPath,
    columns: z.array(Column).min(1).max(8),
    /** Values offered for `filter[status]`. */
    statuses: z.array(z.string()).optional(),
    actions: z.array(Action).max(6).optional(),
    /** The field of a row that stands for `{id}` in its actions' paths (default `id`). */
    row_id: z.string().regex(/^[a-z_][a-z0-9_]*$/i).optional(),
    /** A form that adds a row, shown above the list to those holding its permission. */
    create: CreateForm.optional(),
  })
  .strict();

/** The fields of one record (an endpoint answering `{data: {...}}` or a bare object). */
const FieldsView = z.object({ type: z.literal('fields'), source: ApiPath, fields: z.array(Column).min(1).max(12) }).strict();

const View = z.discriminatedUnion('type', [ListView, FieldsView]);

/** The places of the dashboard where widgets go. */
export const ADMIN_ZONES = ['home', 'order.detail', 'product.detail'] as const;

const Page = z
  .object({
    /** The page's address under the dashboard: `/admin/ui/x/<plugin>/<path>`. */
    path: z.string().regex(/^[a-z0-9][a-z0-9-]*$/),
    title: Text,
    permission: Permission.optional(),
    /** Whether the page has an entry in the navigation (default true). */
    nav: z.boolean().default(true),
    view: View,
  })
  .strict();

const Widget = z
  .object({
    zone: z.enum(ADMIN_ZONES),
    title: Text,
    permission: Permission.optional(),
    view: View,
  })
  .strict();

/** What a plugin adds to the dashboard: `definePlugin({ ..., admin: { pages, widgets } })`. */
export const AdminDeclaration = z.object({ pages: z.array(Page).default([]), widgets: z.array(Widget).default([]) }).strict();

export type AdminDeclarationInput = z.input<typeof AdminDeclaration>;
export type AdminDeclarationOut = z.output<typeof AdminDeclaration>;
export type AdminZone = (typeof ADMIN_ZONES)[number];

/** What the dashboard reads at start: every installed plugin's declarations, checked. */
export interface AdminManifest {
  plugins: string[];
  extensions: Array<{ plugin: string } & AdminDeclarationOut>;
}

/**
 * The manifest of the installed plugins. A declaration that is not well formed stops the start
 * with the plugin's name and the faulty field, as a bad custom field does.
 */
export function adminManifest(plugins: readonly QhatuPlugin[]): AdminManifest {
  const extensions: AdminManifest['extensions'] = [];
  for (const plugin of plugins) {
    const declared = (plugin as QhatuPlugin & { admin?: unknown }).admin;
    if (declared === undefined) continue;
    const parsed = AdminDeclaration.safeParse(declared);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new Error(`Plugin "${plugin.name}" declares an admin extension that is not valid: admin.${issue.path.join('.')} ${issue.message}`);
    }
    extensions.push({ plugin: plugin.name, ...parsed.data });
  }
  return { plugins: plugins.map((p) => p.name), extensions };
}
