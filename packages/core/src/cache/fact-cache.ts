import { LRUCache } from 'lru-cache';
import { APP_ROLE } from '../db/migrations.js';

/** `QHATU_CACHE` (on or off, shared with the read cache) and `QHATU_FACT_CACHE_MAX_MB`. */
export interface FactCacheSettings {
  enabled: boolean;
  maxBytes: number;
}

/**
 * Facts of a store that a hot write reads with SQL and may keep in memory instead (decision 0049):
 * what one id (a variant, a product) says, under the store's version of a topic. The version is
 * bumped in the transaction of every change of what the facts come from, so a caller that reads
 * the version in its own transaction uses an entry only when it is exactly what the database
 * holds; nothing is announced between processes.
 *
 * `C` is the column that the owner's SQL gives for a list of ids (one JSON value); `split` cuts
 * it into entries by key, `join` puts kept entries back together for other ids.
 */
export interface KeptFacts<C = unknown> {
  readonly topic: string;
  /** The store's version of the topic as an SQL expression (text), for a caller's select list. */
  versionSql(tenantSql: string): string;
  /** The entries to keep of a column read for `ids`: one for every id, found or not (then `null`). */
  split(column: unknown, ids: readonly string[]): Iterable<readonly [string, unknown]>;
  /** The column for `ids` from kept entries (`entry(key)` is `undefined` when not kept), or `undefined` when one is missing. */
  join(entry: (key: string) => unknown, ids: readonly string[]): C | undefined;
}

/** What a caller's statement reads of a topic's version (`versionSql`): text, or null before the first change. */
export type FactVersion = string | null;

/** The entries of one store's topic at one version, by key; sized as a whole in the LRU. */
interface Shelf {
  items: Map<string, unknown>;
  bytes: number;
}

/** What `remember` keeps under a key: the latest value and its version. */
interface Latest {
  version: string;
  value: unknown;
  bytes: number;
}

/** An estimate of what a value holds in memory (UTF-16 strings, some overhead a field). */
function estimate(key: string, value: unknown): number {
  return 2 * (key.length + (JSON.stringify(value)?.length ?? 4)) + 96;
}

/**
 * The process's memory of `KeptFacts` and of other exact entries (a cart's lines under the row
 * version of the cart), bounded by bytes (least recently used out). A store's topic at a version
 * is a shelf of entries by key, so an entry of another version is never found and old shelves
 * age out as a whole.
 */
export class FactCache {
  private readonly entries: LRUCache<string, Shelf | Latest> | undefined;

  constructor(readonly settings: FactCacheSettings) {
    this.entries = settings.enabled ? new LRUCache<string, Shelf | Latest>({ maxSize: settings.maxBytes, sizeCalculation: (v) => ('bytes' in v ? v.bytes : 96) }) : undefined;
  }

  get enabled(): boolean {
    return this.entries !== undefined;
  }

  /** Bytes, entries and stores held now (for `/metrics`). */
  stats(): { bytes: number; maxBytes: number; entries: number; stores: number } {
    const stores = new Set<string>();
    // Keys are `<topic> <store> …`.
    for (const key of this.entries?.keys() ?? []) stores.add(key.split(' ', 2)[1]);
    return { bytes: this.entries?.calculatedSize ?? 0, maxBytes: this.settings.maxBytes, entries: this.size, stores: stores.size };
  }

  /** Shelves and remembered keys held. */
  get size(): number {
    return this.entries?.size ?? 0;
  }

  /** The last value remembered under the store's topic and key, with the version it was remembered at. */
  recall(tenantId: string, topic: string, key: string): Latest | undefined {
    return this.entries?.get(`${topic} ${tenantId} ${LATEST} ${key}`) as Latest | undefined;
  }

  /**
   * Remembers `value` as the latest under the store's topic and key, at `version` (a row's version,
   * say), replacing what was there; `bytes` is what it holds (estimated from its JSON when not given).
   */
  remember(tenantId: string, topic: string, key: string, version: string, value: unknown, bytes?: number): void {
    if (!this.entries) return;
    const full = `${topic} ${tenantId} ${LATEST} ${key}`;
    this.entries.set(full, { version, value, bytes: bytes ?? estimate(full, value) });
  }

  /** The column of `facts` for `ids` at `version`, from memory; `undefined` when any part is not kept. */
  known<C>(tenantId: string, facts: KeptFacts<C>, version: FactVersion, ids: readonly string[]): C | undefined {
    const shelf = this.shelf(tenantId, facts.topic, version);
    if (!shelf) return undefined;
    return facts.join((key) => shelf.items.get(key), ids);
  }

  /** Keeps what a statement read of `facts` for `ids`, under the version that statement read with it. */
  keep(tenantId: string, facts: KeptFacts, version: FactVersion, ids: readonly string[], column: unknown): void {
    if (this.entries) this.fill(tenantId, facts.topic, version, facts.split(column, ids));
  }

  private shelf(tenantId: string, topic: string, version: FactVersion): Shelf | undefined {
    return this.entries?.get(`${topic} ${tenantId} ${version ?? '0'}`) as Shelf | undefined;
  }

  private fill(tenantId: string, topic: string, version: FactVersion, entries: Iterable<readonly [string, unknown]>): void {
    if (!this.entries) return;
    const name = `${topic} ${tenantId} ${version ?? '0'}`;
    const was = this.entries.get(name) as Shelf | undefined;
    const items = was?.items ?? new Map<string, unknown>();
    let bytes = was?.bytes ?? 2 * name.length + 96;
    for (const [key, value] of entries) {
      if (value === undefined || items.has(key)) continue;
      items.set(key, value);
      bytes += estimate(key, value);
    }
    // A new shelf object, so that the LRU takes its new size (the same object would keep the old one);
    // a shelf larger than the whole budget is dropped.
    this.entries.set(name, { items, bytes });
  }
}

/** The version part of a `remember`ed key (versions are digits). */
const LATEST = 'latest';


const TOPIC = /^[a-z][a-z0-9_.]{0,62}$/;

function checkedTopic(topic: string): string {
  if (!TOPIC.test(topic)) throw new Error(`A fact topic is lower-case letters, digits, "_" and ".": not "${topic}"`);
  return topic;
}

/** The store's version of a topic that `factVersionTrigger` bumps, as an SQL expression (text) for a caller's select list. */
export function factVersionSql(tenantSql: string, topic: string): string {
  return `(select version::text from core_fact_version where tenant_id = ${tenantSql} and topic = '${checkedTopic(topic)}')`;
}

/**
 * A migration's statement: every insert, update or delete of `table`'s rows bumps the store's
 * version of `topic` in the same transaction (once per transaction, store and topic; at commit,
 * so the counter's row is locked only then). `tenantColumn` names the store (the tenants table's
 * own `id`, say).
 */
export function factVersionTrigger(topic: string, table: string, tenantColumn = 'tenant_id'): string {
  const name = `${table}_${checkedTopic(topic).replace(/\./g, '_')}_facts`;
  const args = tenantColumn === 'tenant_id' ? `'${topic}'` : `'${topic}', '${tenantColumn.replace(/[^a-z0-9_]/g, '')}'`;
  return `CREATE CONSTRAINT TRIGGER ${name} AFTER INSERT OR UPDATE OR DELETE ON ${table}
            DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION core_fact_bump(${args})`;
}

/** The core migration's statements: the counters and the trigger function. */
export const factVersionTables = [
  `CREATE TABLE core_fact_version (
     tenant_id uuid NOT NULL,
     topic text NOT NULL,
     version bigint NOT NULL,
     PRIMARY KEY (tenant_id, topic))`,
  // Row-level security like every store's table; the trigger function bumps a counter of whatever
  // store the changed row names, also when the change is made outside a store (the platform
  // editing a store), so it runs as its owner.
  `ALTER TABLE core_fact_version ENABLE ROW LEVEL SECURITY`,
  `CREATE POLICY core_fact_version_tenant_isolation ON core_fact_version
     USING (tenant_id = nullif(current_setting('app.tenant_id', true), '')::uuid)`,
  `GRANT SELECT ON core_fact_version TO ${APP_ROLE}`,
  `CREATE FUNCTION core_fact_bump() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
   DECLARE
     store uuid;
     mark text;
     bumped text := coalesce(current_setting('qhatu.facts_bumped', true), '');
   BEGIN
     IF TG_NARGS > 1 AND TG_OP = 'DELETE' THEN
       store := (to_jsonb(OLD) ->> TG_ARGV[1])::uuid;
     ELSIF TG_NARGS > 1 THEN
       store := (to_jsonb(NEW) ->> TG_ARGV[1])::uuid;
     ELSIF TG_OP = 'DELETE' THEN
       store := OLD.tenant_id;
     ELSE
       store := NEW.tenant_id;
     END IF;
     mark := TG_ARGV[0] || ':' || store::text || ',';
     IF position(mark IN bumped) > 0 THEN RETURN NULL; END IF;
     INSERT INTO core_fact_version AS v (tenant_id, topic, version) VALUES (store, TG_ARGV[0], 1)
       ON CONFLICT (tenant_id, topic) DO UPDATE SET version = v.version + 1;
     PERFORM set_config('qhatu.facts_bumped', bumped || mark, true);
     RETURN NULL;
   END $$`,
];
