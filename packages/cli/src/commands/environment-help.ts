/** The environment every command that runs the store reads (ARCHITECTURE.md, "Configuration"). */
export const ENVIRONMENT_HELP = `
Environment:
  DATABASE_URL          PostgreSQL to use; unset: an embedded database in QHATU_DATA_DIR
  DATABASE_DIRECT_URL   PostgreSQL itself when DATABASE_URL is a pooler (LISTEN, the job queue, migrations)
  DATABASE_REPLICA_URLS streaming replicas (comma-separated) for reads that may lag; DATABASE_REPLICA_MAX_LAG_MS
                        (default 1000) skips one further behind
  QHATU_DATA_DIR        data folder of the embedded database and the generated platform token (default ./.qhatu)
  QHATU_PLATFORM_TOKEN  the platform credential (at least 24 characters); required in production,
                        generated into QHATU_DATA_DIR/platform-token in development
  QHATU_ENV             development | production (default: development when the database is embedded);
                        development on DATABASE_URL too: a generated platform token, the workers in qhatu start
  PORT, HOST            where to listen (default 3000, 127.0.0.1)
  QHATU_PUBLIC_URL      base URL used in links (default from HOST and PORT)
  REDIS_URL             job queue on Redis instead of PostgreSQL
  SMTP_URL              outgoing mail
  LOG_LEVEL             fatal | error | warn | info | debug | trace | silent (default info)
  QHATU_METRICS_TOKEN   bearer token for GET /metrics (else the platform token); QHATU_METRICS_PORT: a port of its own
  OTEL_EXPORTER_OTLP_ENDPOINT  send OpenTelemetry traces there (OTLP/HTTP)
`;
