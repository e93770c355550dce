import { useEffect, useState } from 'react';
import { client } from './api';

/**
 * A record's thumbnail as an object URL: the image call needs the bearer token, which a CSS
 * background request would not send. Null while loading, and when there is none (the initial shows).
 */
export function useThumbnail(url: string | null): string | null {
  const [src, setSrc] = useState<string | null>(null);
  useEffect(() => {
    if (!url) return undefined;
    let objectUrl: string | null = null;
    let stale = false;
    client.raw('GET', url).then(async (res) => {
      if (!res.ok || stale) return;
      objectUrl = URL.createObjectURL(await res.blob());
      if (stale) URL.revokeObjectURL(objectUrl);
      else setSrc(objectUrl);
    }, () => undefined);
    return () => {
      stale = true;
      if (objectUrl) URL.revokeObjectURL(objectUrl);
    };
  }, [url]);
  return src;
}
