/**
 * The service the instances suites run several times on one store (instances.test.ts through Redis,
 * instances-postgres.test.ts through PostgreSQL), and its twin: the same tables without cache nor link, which
 * writes behind the instances' backs to see whether they cache (caches-probe.ts).
 */

/** Authors and their books (Mercure on books), cached in process; `cluster` is the service's cluster setting. */
export const instancesService = (title: string, cluster: string): string => `api "${title}" { version: "1.0.0" }

config {
  patch_formats: ["application/merge-patch+json"]
  ${cluster}
  http_cache { in_process { max_bytes: 10000000 } }
  mercure { hub: "builtin", history_size: 1000 }
}

resource Author {
  properties { id: int { identifier: true }, name: string }
  operations { GetCollection, Post, Get, Patch }
}

resource Book {
  mercure: true
  properties { id: int { identifier: true }, title: string, author: Author }
  operations {
    GetCollection
    Post
    Get
    Patch
    GetCollection { uriTemplate: "/authors/{author}/books", links: [{ parameterName: "author", fromClass: "Author", toProperty: "author" }] }
  }
}
`;

/**
 * The same tables without cache. Its `title` names its channel: on PostgreSQL every process has a link, so a
 * twin must have another title than the instances for them not to hear its writes.
 */
export const twinService = (title: string): string => `api "${title}" { version: "1.0.0" }
config { patch_formats: ["application/merge-patch+json"] }
resource Author { properties { id: int { identifier: true }, name: string } }
resource Book { properties { id: int { identifier: true }, title: string, author: Author } }
`;
