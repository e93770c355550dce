import { useEffect, useRef, useState } from 'react';
import maplibregl from 'maplibre-gl';
import 'maplibre-gl/dist/maplibre-gl.css';
import type { MapLibreStyle } from '@studio/schema';

/** Where a style preview opens: the whole world, so borders and land show on any style. */
const WORLD_VIEW = { center: [10, 25] as [number, number], zoom: 0.6 };

/**
 * A style drawn by MapLibre as it will show under a map's layers. `onDrawn` receives the canvas once
 * the style has drawn (the editor turns it into the asset's thumbnail); the drawing buffer is kept for that.
 */
export function StylePreview({ style, onDrawn }: { style: MapLibreStyle; onDrawn?: (canvas: HTMLCanvasElement | null) => void }) {
  const host = useRef<HTMLDivElement>(null);
  const [error, setError] = useState<string | null>(null);
  const [state, setState] = useState<'loading' | 'ready'>('loading');
  useEffect(() => {
    if (!host.current) return undefined;
    setError(null);
    setState('loading');
    onDrawn?.(null);
    const map = new maplibregl.Map({
      container: host.current,
      style: style as maplibregl.StyleSpecification,
      ...WORLD_VIEW,
      attributionControl: false,
      preserveDrawingBuffer: true,
    });
    map.on('error', (e) => setError(e.error?.message ?? 'The style could not be drawn'));
    map.once('idle', () => {
      setState('ready');
      onDrawn?.(map.getCanvas());
    });
    return () => map.remove();
    // onDrawn is a callback of the page; the map is rebuilt only for a new style.
  }, [style]);
  return (
    <div className="style-preview-box">
      {error && <div className="error" role="alert">{`Preview: ${error}`}</div>}
      <div ref={host} className="style-preview" role="img" aria-label="Style preview" data-state={state} />
    </div>
  );
}

/** A thumbnail (PNG, 320 × 200) of a drawn canvas, the middle of it where it is wider. */
export async function thumbnailOf(canvas: HTMLCanvasElement): Promise<Blob> {
  const out = document.createElement('canvas');
  out.width = 320;
  out.height = 200;
  const scale = Math.max(out.width / canvas.width, out.height / canvas.height);
  const w = out.width / scale;
  const h = out.height / scale;
  out.getContext('2d')!.drawImage(canvas, (canvas.width - w) / 2, (canvas.height - h) / 2, w, h, 0, 0, out.width, out.height);
  return new Promise((resolve, reject) => out.toBlob((b) => (b ? resolve(b) : reject(new Error('The preview could not be saved as an image'))), 'image/png'));
}
