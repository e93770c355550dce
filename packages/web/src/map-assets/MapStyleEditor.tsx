import { useMemo, useRef, useState, type ChangeEvent, type FormEvent } from 'react';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { can, parseStyleFile, type MapLibreStyle } from '@studio/schema';
import type { MapAsset } from '@studio/client';
import { client } from '../app/api';
import { ErrorMessage, TextField, useAction } from '../app/ui';
import { useLoad } from '../app/useLoad';
import { StylePreview, thumbnailOf } from './StylePreview';
import { summarizeStyle } from './style-document';
import './map-assets.css';

/** /workspace/basemaps/new and /workspace/basemaps/{id}: a map style from a MapLibre style file. */
export function MapStyleEditorPage() {
  const { id } = useParams();
  const loaded = useLoad(async () => {
    if (!id) return null;
    const asset = await client.mapAssets.get(id);
    if (asset.assetType !== 'map-style') throw new Error('This asset is a color palette, not a map style');
    const style = await client.mapAssets.styleOf(asset);
    const parsed = style ? parseStyleFile(JSON.stringify(style)) : null;
    return { asset, style: parsed && 'style' in parsed ? parsed.style : null };
  }, [id]);
  if (loaded.error) return <section className="page"><ErrorMessage message={loaded.error} onRetry={loaded.reload} /></section>;
  if (id && !loaded.data) return <section className="page"><p role="status">Loading the map style…</p></section>;
  return (
    <MapStyleEditor
      key={loaded.data?.asset.updatedAt ?? 'new'}
      saved={loaded.data?.asset ?? null}
      savedStyle={loaded.data?.style ?? null}
      onSaved={loaded.reload}
    />
  );
}

function MapStyleEditor({ saved, savedStyle, onSaved }: { saved: MapAsset | null; savedStyle: MapLibreStyle | null; onSaved: () => void }) {
  const navigate = useNavigate();
  const editable = !saved || can(saved.access, 'write');
  const [name, setName] = useState(saved?.name ?? '');
  const [description, setDescription] = useState(saved?.description ?? '');
  // A file the user picked and that passed the check, not saved yet.
  const [picked, setPicked] = useState<{ fileName: string; text: string; style: MapLibreStyle } | null>(null);
  const [fileError, setFileError] = useState<string | null>(null);
  const canvas = useRef<HTMLCanvasElement | null>(null);
  const save = useAction();
  const style = picked?.style ?? savedStyle;
  const summary = useMemo(() => (style ? summarizeStyle(style, window.location.origin) : null), [style]);

  const pickFile = async (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.target.files?.[0];
    if (!file) return;
    const text = await file.text();
    const parsed = parseStyleFile(text);
    if ('error' in parsed) {
      setPicked(null);
      setFileError(`${file.name}: ${parsed.error}`);
      return;
    }
    setFileError(null);
    setPicked({ fileName: file.name, text, style: parsed.style });
    if (!name.trim() && typeof parsed.style.name === 'string') setName(parsed.style.name);
  };

  const onDrawn = (c: HTMLCanvasElement | null) => {
    canvas.current = c;
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    void save.run(async () => {
      if (!saved && !picked) throw new Error('Choose a style file (a MapLibre style JSON)');
      const asset = saved
        ? await client.mapAssets.update(saved.id, { assetType: 'map-style', name, description })
        : await client.mapAssets.create({ assetType: 'map-style', name, description });
      if (picked) {
        try {
          await client.mapAssets.uploadStyleFile(asset.id, picked.text);
        } catch (err) {
          // A new style whose file was refused is not left behind half made.
          if (!saved) await client.mapAssets.delete(asset.id);
          throw err;
        }
      }
      // The thumbnail is the preview as drawn; a style that has not drawn yet keeps the one it had.
      if (canvas.current && (picked || !saved?.thumbnailUrl)) await client.mapAssets.uploadThumbnail(asset.id, await thumbnailOf(canvas.current));
      if (saved) onSaved();
      else navigate(`/workspace/basemaps/${asset.id}`, { replace: true });
    });
  };

  return (
    <section className="page asset-editor">
      <header className="page-header">
        <h1>{saved ? saved.name : 'New map style'}</h1>
        <Link to="/workspace/basemaps">All basemaps</Link>
      </header>
      <p className="muted">
        A map style draws under a map’s layers. It is a MapLibre style document (version 8): upload its JSON file; maps pick it in the
        builder’s Base map panel.
      </p>
      <div className="asset-editor-columns">
        <form className="asset-form" onSubmit={submit} aria-label="Map style">
          {editable ? (
            <>
              <TextField label="Name" value={name} onChange={(e) => setName(e.target.value)} required maxLength={500} />
              <div className="field">
                <label htmlFor="style-description">Description</label>
                <textarea id="style-description" rows={3} value={description} onChange={(e) => setDescription(e.target.value)} maxLength={10_000} />
              </div>
              <div className="field">
                <label htmlFor="style-file">{saved ? 'Replace the style file' : 'Style file (MapLibre style JSON)'}</label>
                <input id="style-file" type="file" accept=".json,application/json" onChange={(e) => void pickFile(e)} />
              </div>
              <ErrorMessage message={fileError} />
            </>
          ) : (
            <p className="muted">You can view this map style; its owner and editors change it.</p>
          )}
          {summary && <StyleSummaryView summary={summary} fileName={picked?.fileName ?? null} />}
          {saved && !style && <p className="muted">This style has no style document yet{saved.externalUrl ? ` (it points at ${saved.externalUrl})` : ''}: upload its file to use it in maps.</p>}
          {editable && (
            <div className="form-actions">
              <button type="submit" className="button button-primary" disabled={save.pending}>
                {save.pending ? 'Saving…' : saved ? 'Save map style' : 'Create map style'}
              </button>
            </div>
          )}
          <ErrorMessage message={save.error} />
        </form>
        <div>{style ? <StylePreview style={style} onDrawn={onDrawn} /> : <div className="style-preview style-preview-empty">The preview shows once a style file is chosen.</div>}</div>
      </div>
    </section>
  );
}

function StyleSummaryView({ summary, fileName }: { summary: ReturnType<typeof summarizeStyle>; fileName: string | null }) {
  const types = Object.entries(summary.layerTypes).map(([t, n]) => `${n} ${t}`).join(', ');
  return (
    <div className="style-summary" role="status" aria-label="Style summary">
      <p>
        {fileName && <strong>{fileName}: </strong>}
        {summary.layers} layer{summary.layers === 1 ? '' : 's'} ({types}), {summary.sources} source{summary.sources === 1 ? '' : 's'}.
      </p>
      {summary.outsideHosts.length > 0 && (
        <p className="warning">Maps on this style load from other hosts: {summary.outsideHosts.join(', ')}. Viewers’ browsers send requests there.</p>
      )}
      {summary.textWithoutGlyphs && <p className="warning">Its labels need a glyph server (the style’s “glyphs”), which it does not name: labels will not draw.</p>}
    </div>
  );
}
