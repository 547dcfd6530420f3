/**
 * The version of a network's API a plugin calls, and when its owner retires it. `GET /api/providers`
 * lists the version each network is called with (`apiVersion`, `apiSunset`), and a spec
 * (provider-api-versions.spec.ts) fails once a pinned version is within SUNSET_WARNING_DAYS of the
 * retirement date its source states, so the suite says when to move. docs/networks.md lists the sources.
 */
export interface ApiVersionSpec {
  /** The version this service calls by default (an API path segment, a header value, a name). */
  readonly pinned: string;
  /** The plugin setting (key of its `settings`) that overrides the pinned version, if any. */
  readonly setting?: string;
  /** The day (YYYY-MM-DD) the owner retires `version`, where the owner states one. */
  readonly sunset?: (version: string) => string | undefined;
  /** Where the version and its retirement are stated, with the date it was checked. */
  readonly source: string;
}

/** How long before a stated retirement the suite fails (provider-api-versions.spec.ts). */
export const SUNSET_WARNING_DAYS = 60;

/** The version a plugin calls with these settings. */
export function apiVersionOf(spec: ApiVersionSpec, settings: Readonly<Record<string, unknown>>): string {
  const configured = spec.setting ? settings[spec.setting] : undefined;
  return typeof configured === 'string' && configured ? configured : spec.pinned;
}

/**
 * Meta's Graph API versions and the day each is available until ("Available Graph API Versions",
 * developers.facebook.com/docs/graph-api/changelog, page of 2026-10-29, checked 2026-11-29). A version
 * is retired about two years after its release; a newer one's date is stated when its successor ships.
 */
export const GRAPH_VERSION_SUNSETS: Readonly<Record<string, string>> = {
  'v21.0': '2027-01-21',
  'v22.0': '2027-05-20',
  'v23.0': '2027-10-08',
  'v24.0': '2028-02-18',
  'v25.0': '2028-07-29',
};

/** A Graph API version's retirement day, when Meta states one. */
export const graphVersionSunset = (version: string): string | undefined => GRAPH_VERSION_SUNSETS[version];

/**
 * A LinkedIn Marketing API version (`YYYYMM`, the `LinkedIn-Version` header) is supported for at least
 * one year from its release ("LinkedIn Marketing API Versioning", learn.microsoft.com/linkedin/marketing/
 * versioning, checked 2026-11-29): its last day is taken as the first of the month twelve months later.
 */
export function linkedInVersionSunset(version: string): string | undefined {
  const m = /^(\d{4})(\d{2})$/.exec(version);
  if (!m) return undefined;
  const year = Number(m[1]) + 1;
  return `${year}-${m[2]}-01`;
}
