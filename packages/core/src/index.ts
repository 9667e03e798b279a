import 'reflect-metadata';

export { createApp, migrateAll, type CreateAppOptions, type QhatuApp } from './app.js';
export type { RouteInfo } from './http/server.js';
export { Secrets } from './auth/secrets.js';
export { linkPage, paymentLinkNotFound, SealedLinks, type SealedClaim, type SealedLinkOptions } from './auth/sealed-links.js';
export { AccessTokens, hashToken, type TenantTokenKind } from './auth/tokens.js';
export { Passwords } from './auth/passwords.js';
export { assertPermission, CORE_PERMISSIONS, hasPermission, isAdminRule, PermissionRegistry } from './auth/permissions.js';
export { CACHE_CHANNEL, CACHE_LISTENER_NAME, PostgresCacheSync, RedisCacheSync, type CacheSync, type CacheSyncHandlers, type CacheTopicHandlers } from './auth/cache-sync.js';
export { EXPECTATION_FAILED, expectSql, isExpectationFailure } from './db/expect.js';
export { FactCache, factVersionSql, factVersionTrigger, type FactCacheSettings, type FactVersion, type KeptFacts } from './cache/fact-cache.js';
export { entityTag, ReadCache, type CachedAnswer, type CacheSlot, type CheckedRead, type ReadCacheSettings } from './cache/read-cache.js';
export { FrontDoor, matchesEtag, REMEMBERED_KEY_CHARS_MAX } from './http/front-door.js';
export { StaffDirectory } from './staff/directory.js';
export { StaffMembers } from './staff/members.js';
export { StaffAccounts } from './staff/accounts.js';
export { Roles } from './staff/roles.js';
export { staffOut } from './staff/routes.js';
export { ConfigError, loadConfig, parseEnvironment, type QhatuConfig } from './config.js';
export { TenantContext, type Principal, type RequestScope, type TokenKind } from './context.js';
export { AsyncSlot } from './async-slot.js';
export { corePlugin } from './core-plugin.js';
export { Database, jsonColumn, OrmRequired, ormOf, statementText, statementTexts, Tx, uuidArray, type BeforeStatement, type SqlReader, type SqlStatement, type SqlTx, type TxReader } from './db/database.js';
export { joinedColumns, joinedEntity } from './db/joined.js';
export { leavesDatabase } from './db/retry.js';
export { startEmbeddedDatabase } from './db/embedded.js';
export {
  AccessToken,
  BUILT_IN_ROLES,
  OutboxEvent,
  Role,
  StaffMember,
  STAFF_STATUSES,
  Tenant,
  TENANT_STATUSES,
  type StaffStatus,
  type TenantStatus,
} from './db/entities.js';
export { APP_ROLE, migrate, pendingMigrations, tenantTable, type Migration } from './db/migrations.js';
export { directDatabaseUrl } from './db/direct.js';
export { dropSearchIndex, searchCondition, searchIndex, searchPage, searchWhere, type SearchIndexSpec, type SearchPageSpec, type SqlPart } from './db/search.js';
export { COUNTRY_CODES, CountryCode } from './http/country-codes.js';
export { AppError, isAppError, withArticle, type ErrorDetail } from './errors.js';
export { onFirstUse } from './on-first-use.js';
export { DEFAULT_MAIL_FROM, Mailer, type MailAttachment, type MailMessage, type SentMail } from './mail/mailer.js';
export { fillPlaceholders, MAIL_KEY, MailTexts, textToHtml, type ComposedMail, type MailText } from './mail/texts.js';
export { EventBus, type DomainEvent } from './events/bus.js';
export { OUTBOX_DISPATCH_JOB, OutboxRelay, type OutboxSubscriber } from './events/outbox.js';
export { toConnection, connectionTypeDefs, type Connection } from './graphql/connection.js';
export {
  requirePermission,
  type GraphQLAccess,
  type GraphQLContribution,
  type GraphQLFieldInfo,
  type QhatuGraphQLContext,
  type QhatuLoader,
  type QhatuLoaders,
  type QhatuResolver,
  type QhatuResolvers,
} from './graphql/types.js';
export { admits, authorize, bearerToken, tenantHeader } from './http/auth.js';
export { sendError, toAppError } from './http/errors.js';
export { plainText } from './http/plain-text.js';
export {
  DEFAULT_LIMIT,
  MAX_LIMIT,
  decodeCursor,
  encodeCursor,
  filtersOf,
  keyset,
  listQuery,
  pageQuery,
  paginate,
  pgDate,
  type CursorValueType,
  type KeysetColumn,
  type Page,
  type PageRequest,
} from './http/pagination.js';
export { ADMIN, STOREFRONT, type AuthRule } from './http/route-config.js';
export { operationIdOf } from './http/openapi.js';
export { CREDENTIAL_RATE_LIMIT } from './http/rate-limits.js';
export * from './http/schemas.js';
export { Jobs, type JobContext, type JobDefinition, type JobHandler } from './jobs/jobs.js';
export { defineMachine, type Machine, type MachineDefinition, type Transition } from './machines/machine.js';
export { definePlugin, defineProject, orderPlugins, PluginLoadError, PROJECT_PLUGIN, type MailDefinition, type PermissionDefinition, type PluginContext, type QhatuPlugin, type QhatuProject } from './plugin.js';
export * from './custom-fields/index.js';
export { escapeLike, slugify, Tenants } from './tenancy/tenants.js';
export { CLOCK, CONFIG, LOGGER, ORM, PLUGINS, systemClock, type Clock } from './tokens.js';
export { tenantOut } from './tenancy/routes.js';
export { ApiKeyInput, TenantInput, TenantOut } from './tenancy/schemas.js';
export { Housekeeping } from './housekeeping.js';
export * from './translations/index.js';
export * from './markets/index.js';
export { Metrics, UNMATCHED_ROUTE } from './observability/metrics.js';
export { readObservability, type ObservabilitySettings } from './observability/settings.js';
export { flushTracing, REQUEST_ATTRIBUTE, startTracing, stopTracing, TENANT_ATTRIBUTE, traceFields, tracing, type TracingOptions } from './observability/tracing.js';
