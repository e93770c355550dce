import { useRef, useState } from 'react';
import type { HistoryCollection, VersionSummary } from '@studio/schema';
import { useVersionedSave } from './useVersionedSave';

/**
 * What an editor (map, dashboard, workbook) keeps for history (#51): the version it shows read-only (`atVersion`,
 * from the address), whether the History panel is open, the versioned save, and a reload after a restore.
 */
export function useEditorHistory(collection: HistoryCollection, atVersion: number | null) {
  const [version, setVersion] = useState<VersionSummary | null>(null);
  const [open, setOpen] = useState(false);
  const saver = useVersionedSave(collection);
  const [reloads, setReloads] = useState(0);
  const loadedReloads = useRef(0);
  return {
    collection,
    atVersion,
    /** The version shown read-only, once loaded. */
    version,
    setVersion,
    open,
    setOpen,
    saver,
    /** A dependency of the editor's load effect: it runs again after a restore. */
    reloads,
    /**
     * Called once by each run of the load effect: true when the run follows a restore, so the editor keeps showing
     * its record (and so keeps its edit lock, which clearing the record would give up) until the new state is there.
     */
    afterRestore(): boolean {
      const restored = reloads !== loadedReloads.current;
      loadedReloads.current = reloads;
      return restored;
    },
    /** A version was restored: the panel closes and the editor loads the record's new latest state. */
    restored() {
      setOpen(false);
      setReloads((n) => n + 1);
    },
  };
}
export type EditorHistory = ReturnType<typeof useEditorHistory>;
