import { useEffect, useState } from 'react';
import { IMAGE_TYPES, THUMBNAIL_COLLECTIONS, THUMBNAIL_MAX_BYTES, isImageType, type ImageType, type ProjectResource, type ResourceType } from '@studio/schema';
import { StudioApiError } from '@studio/client';
import { client } from '../app/api';
import { Dialog, ErrorMessage, Field, useAction } from '../app/ui';
import { KIND_LABELS } from './folders';

/** The kinds in a project whose builders draw a picture on each save: a project's picture may be taken from one. */
const PICTURE_SOURCES: readonly ProjectResource['resource']['type'][] = ['map', 'insight', 'workbook'];

interface Picked {
  image: Blob;
  type: ImageType;
  url: string;
}

/**
 * A project's picture (its thumbnail in the projects list, CAT-137): an image file of the user's, or the picture
 * of one of the project's maps, dashboards or workbooks (their builders draw one on each save). Shown before it
 * is kept; nothing changes until "Use this picture".
 */
export function ProjectPictureDialog({ projectId, entries, onSaved, onClose }: { projectId: string; entries: ProjectResource[]; onSaved: () => void; onClose: () => void }) {
  const [picked, setPicked] = useState<Picked | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [source, setSource] = useState('');
  const save = useAction();
  const candidates = entries.filter((e) => PICTURE_SOURCES.includes(e.resource.type));

  useEffect(() => () => {
    if (picked) URL.revokeObjectURL(picked.url);
  }, [picked]);

  const show = (image: Blob) => {
    setProblem(null);
    if (!isImageType(image.type)) return setProblem('Choose a PNG, JPEG or WebP image.');
    if (image.size > THUMBNAIL_MAX_BYTES) return setProblem(`The image is larger than ${THUMBNAIL_MAX_BYTES / 1024 / 1024} MB.`);
    setPicked({ image, type: image.type, url: URL.createObjectURL(image) });
  };

  const fromRecord = async (entryId: string) => {
    setSource(entryId);
    setPicked(null);
    setProblem(null);
    const entry = candidates.find((e) => e.id === entryId);
    if (!entry) return;
    try {
      const res = await client.raw('GET', `/v1/${THUMBNAIL_COLLECTIONS[entry.resource.type as ResourceType]}/${entry.resource.id}/thumbnail`);
      show(await res.blob());
    } catch (err) {
      const missing = err instanceof StudioApiError && err.status === 404;
      setProblem(missing ? `“${entry.resource.name}” has no picture yet: open it and save it once to draw one.` : (err as Error).message);
    }
  };

  return (
    <Dialog title="Project picture" onClose={onClose}>
      <form className="form" onSubmit={(e) => {
        e.preventDefault();
        if (!picked) return;
        void save.run(async () => {
          await client.projects.uploadThumbnail(projectId, picked.image, picked.type);
          onSaved();
          onClose();
        });
      }}>
        <Field label="An image file (PNG, JPEG or WebP, up to 10 MB)">
          <input type="file" accept={IMAGE_TYPES.join(',')} onChange={(e) => {
            const file = e.target.files?.[0];
            setSource('');
            if (file) show(file);
          }} />
        </Field>
        {candidates.length > 0 && (
          <Field label="Or the picture of one of the project's records">
            <select value={source} onChange={(e) => void fromRecord(e.target.value)}>
              <option value="">Choose a map, dashboard or workbook…</option>
              {candidates.map((e) => <option key={e.id} value={e.id}>{`${e.resource.name} (${KIND_LABELS[e.resource.type]})`}</option>)}
            </select>
          </Field>
        )}
        {picked && <img className="project-picture-preview" src={picked.url} alt="The picture to use" />}
        <ErrorMessage message={problem ?? save.error} />
        <div className="dialog-actions">
          <button type="button" className="button button-quiet" onClick={onClose}>Cancel</button>
          <button type="submit" className="button button-primary" disabled={!picked || save.pending}>{save.pending ? 'Saving…' : 'Use this picture'}</button>
        </div>
      </form>
    </Dialog>
  );
}
