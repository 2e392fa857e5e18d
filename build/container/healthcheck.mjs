// The image's HEALTHCHECK: asks the emulator's /livez (no key needed) where `mailyard serve` listens
// inside the container, and exits 0 when it answers 200, 1 otherwise.
const host = process.env.MAILYARD_HOST ?? '';
// A wildcard listener is reached on loopback; a particular address (IPv6 in brackets) at itself.
const target = host === '' || host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
const url = `http://${target}:${process.env.MAILYARD_HTTP_PORT || 4400}/livez`;
try {
  const response = await fetch(url, { signal: AbortSignal.timeout(4000) });
  process.exit(response.status === 200 ? 0 : 1);
} catch (err) {
  console.error(`healthcheck: ${url}: ${err.message}`);
  process.exit(1);
}
