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
