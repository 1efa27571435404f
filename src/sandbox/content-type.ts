/** The content type of an artifact: from its first bytes where they are a known signature, else from its name, else text or binary. */
export function detectContentType(name: string, bytes: Buffer): string {
  const starts = (signature: number[] | string, at = 0) => {
    const sig = typeof signature === 'string' ? Buffer.from(signature, 'latin1') : Buffer.from(signature);
    return bytes.length >= at + sig.length && bytes.subarray(at, at + sig.length).equals(sig);
  };
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (starts([0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (starts('GIF87a') || starts('GIF89a')) return 'image/gif';
  if (starts('RIFF') && starts('WEBP', 8)) return 'image/webp';
  if (starts('%PDF-')) return 'application/pdf';
  if (starts([0x50, 0x4b, 0x03, 0x04])) return byExtension(name) ?? 'application/zip';
  if (starts([0x1f, 0x8b])) return 'application/gzip';
  if (starts('PAR1')) return 'application/vnd.apache.parquet';
  const extension = byExtension(name);
  if (extension) return extension;
  if (isUtf8Text(bytes)) return 'text/plain; charset=utf-8';
  return 'application/octet-stream';
}

const EXTENSIONS: Record<string, string> = {
  csv: 'text/csv; charset=utf-8',
  tsv: 'text/tab-separated-values; charset=utf-8',
  json: 'application/json',
  jsonl: 'application/jsonl',
  txt: 'text/plain; charset=utf-8',
  md: 'text/markdown; charset=utf-8',
  html: 'text/html; charset=utf-8',
  svg: 'image/svg+xml',
  xml: 'application/xml',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  npy: 'application/octet-stream',
};

function byExtension(name: string): string | undefined {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? EXTENSIONS[name.slice(dot + 1).toLowerCase()] : undefined;
}

function isUtf8Text(bytes: Buffer): boolean {
  if (bytes.includes(0)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}
