import { Timestamp } from '@qhatu/core';
import { z } from 'zod';

export const SettingsInput = z.strictObject({ sql_threshold: z.number().int().min(0).max(100) }).meta({ id: 'CrmSettingsUpdate' });
export const SettingsOut = z
  .object({ sql_threshold: z.number().int().meta({ description: 'qualify makes a lead `sql` at or above this score, `mql` below' }), updated_at: Timestamp.nullable() })
  .meta({ id: 'CrmSettings' });
