/** How to choose another port, in the forms a user starts the hub with. */
const PICK_ANOTHER_PORT = 'pick another with `npm start -- --port N`, `a2a-hub serve --port N` or A2A_HUB_PORT=N (0 picks a free one)';
const PICK_ANOTHER_HOST = 'use 127.0.0.1 (this machine only) or 0.0.0.0 (every interface), with --host or A2A_HUB_HOST';

/** Says why the hub could not listen on host:port and what to change; other errors keep their own message. */
export function listenError(error: unknown, host: string, port: number): Error {
  const code = (error as { code?: unknown }).code;
  const message = describe(code, host, port);
  return message === undefined ? (error as Error) : new Error(message, { cause: error });
}

function describe(code: unknown, host: string, port: number): string | undefined {
  switch (code) {
    case 'EADDRINUSE':
      return `cannot listen: port ${port} on ${host} is already in use (another a2a-hub, or another program): ${PICK_ANOTHER_PORT}`;
    case 'EACCES':
      return `cannot listen: this user may not use port ${port} on ${host} (ports below 1024 need privileges): ${PICK_ANOTHER_PORT}`;
    case 'EADDRNOTAVAIL':
      return `cannot listen on ${host}: it is not an address of this machine; ${PICK_ANOTHER_HOST}`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot listen on ${host}: no address is known by that name; ${PICK_ANOTHER_HOST}`;
    default:
      return undefined;
  }
}
