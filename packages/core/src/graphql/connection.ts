import type { Page } from '../http/pagination.js';

export interface Connection<N> {
  edges: { node: N; cursor: string }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
}

/** The Connection pattern over a page from `paginate`: `edges {node, cursor}` and `pageInfo`. */
export function toConnection<T, N>(page: Page<T>, map: (item: T) => N, requestedAfter?: string): Connection<N> {
  const edges = page.items.map((item) => ({ node: map(item), cursor: page.cursorOf(item) }));
  return {
    edges,
    pageInfo: {
      hasNextPage: page.pagination.has_next,
      hasPreviousPage: Boolean(requestedAfter),
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges[edges.length - 1]?.cursor ?? null,
    },
  };
}

export const connectionTypeDefs = (node: string) => `
  type ${node}Edge { node: ${node}!, cursor: String! }
  type ${node}Connection { edges: [${node}Edge!]!, pageInfo: PageInfo! }
`;
