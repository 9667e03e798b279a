import { z } from 'zod';
import { ConfigError, parseEnvironment, type QhatuConfig } from '../config.js';

const Env = z.object({
  QHATU_METRICS: z.enum(['on', 'off']).default('on'),
  QHATU_METRICS_TOKEN: z.string().min(24, 'must be at least 24 characters').optional(),
  QHATU_METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  QHATU_METRICS_HOST: z.string().min(1).optional(),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.string().url().optional(),
  OTEL_SDK_DISABLED: z.enum(['true', 'false']).optional(),
});

export interface ObservabilitySettings {
  metrics: {
    enabled: boolean;
    /** Scrapers send it as a bearer token; the platform token is accepted too on the API port. */
    token?: string;
    /** A listener of its own for `/metrics` (the API port then does not serve it). */
    port?: number;
    host: string;
  };
  /** Where traces go (OTLP/HTTP), when an endpoint is set (the standard `OTEL_*` variables). */
  tracing?: { url: string };
}

/** The metrics and tracing settings of the environment; every problem is reported at once. */
export function readObservability(config: QhatuConfig): ObservabilitySettings {
  const e = parseEnvironment(config.environment, Env);
  // As OpenTelemetry reads them: the traces endpoint is a full URL, the general one a base.
  const tracesUrl = e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? (e.OTEL_EXPORTER_OTLP_ENDPOINT && `${e.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/$/, '')}/v1/traces`);
  if (e.QHATU_METRICS_PORT && e.QHATU_METRICS_PORT === config.port) {
    throw new ConfigError([`QHATU_METRICS_PORT: must differ from PORT (${config.port}), which serves the API`]);
  }
  return {
    metrics: {
      enabled: e.QHATU_METRICS === 'on',
      token: e.QHATU_METRICS_TOKEN,
      port: e.QHATU_METRICS_PORT,
      host: e.QHATU_METRICS_HOST ?? config.host,
    },
    tracing: tracesUrl && e.OTEL_SDK_DISABLED !== 'true' ? { url: tracesUrl } : undefined,
  };
}
