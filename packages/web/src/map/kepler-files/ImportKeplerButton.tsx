import { useRef } from 'react';
import { useNavigate } from 'react-router-dom';
import { client } from '../../app/api';
import { ErrorMessage, useAction } from '../../app/ui';

/**
 * "Import kepler.gl map" in the maps list: a file kepler.gl exported (Export map → JSON) becomes a map of the
 * studio with its datasets, and opens in the builder. The file is read here and sent as it is; the server
 * checks it (docs/decisions.md "kepler.gl files").
 */
export function ImportKeplerButton({ onChanged }: { onChanged: () => void }) {
  const input = useRef<HTMLInputElement>(null);
  const importing = useAction();
  const navigate = useNavigate();

  async function importFile(file: File) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(await file.text());
    } catch {
      throw new Error(`${file.name} is not a kepler.gl map file: it is not JSON`);
    }
    const map = await client.maps.importKepler(parsed);
    onChanged();
    navigate(`/${map.id}`);
  }

  return (
    <>
      <button type="button" className="button" disabled={importing.pending} onClick={() => input.current?.click()}>
        {importing.pending ? 'Importing…' : 'Import kepler.gl map'}
      </button>
      <input
        ref={input}
        type="file"
        accept=".json,application/json"
        aria-label="kepler.gl map file"
        hidden
        onChange={(e) => {
          const file = e.target.files?.[0];
          e.target.value = '';
          if (file) void importing.run(() => importFile(file));
        }}
      />
      <ErrorMessage message={importing.error} />
    </>
  );
}
