import { TenantContext } from '@qhatu/core';

/** Who acts: the customer, vendor or staff member a token speaks for, else the API key itself. */
export function actor(): string | null {
  const principal = TenantContext.principal();
  return principal?.subjectId ?? principal?.tokenId ?? null;
}
