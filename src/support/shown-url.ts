/**
 * A URL as it may be shown or logged: without its password and its query (where drivers also take
 * secrets, such as a PostgreSQL sslpassword). `postgres://a2ahub:pw@db:5432/hub?x=y` →
 * `postgres://a2ahub@db:5432/hub`.
 */
export function shownUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    parsed.search = '';
    return parsed.toString();
  } catch {
    return 'a URL that cannot be parsed';
  }
}

/** Words that make a query parameter's name a credential's: `api-key`, `access_token`, `sig`, `client_secret`. */
const CREDENTIAL_WORDS: ReadonlySet<string> = new Set([
  'key',
  'apikey',
  'token',
  'secret',
  'password',
  'passwd',
  'pwd',
  'sig',
  'signature',
  'credential',
  'credentials',
  'auth',
  'authorization',
]);

/**
 * The query parameters of `url` that look like credentials (a name with one of the words above
 * between its `-`, `_` or `.`), with their values; none for a URL that cannot be parsed.
 * `https://x/v1?api-version=1&api-key=k` → `[['api-key', 'k']]`.
 */
export function credentialParameters(url: string): [name: string, value: string][] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [];
  }
  return [...parsed.searchParams.entries()].filter(([name]) =>
    name
      .toLowerCase()
      .split(/[-_.]/)
      .some((word) => CREDENTIAL_WORDS.has(word)),
  );
}
