import { useEffect, useRef, useState } from 'react';
import { useNavigate, useSearchParams, useLocation } from 'react-router-dom';

/** Whether a key press happens while the user types somewhere (then "/" is a character, not the shortcut). */
const typing = (target: EventTarget | null) => target instanceof HTMLElement && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));

/**
 * The workspace's one search box, in the top bar: "/" or Ctrl+K (⌘K) focuses it from anywhere, Enter opens the
 * results (`/workspace/search?q=`), Escape leaves it.
 */
export function SearchBox() {
  const input = useRef<HTMLInputElement>(null);
  const navigate = useNavigate();
  const location = useLocation();
  const [params] = useSearchParams();
  const [value, setValue] = useState(location.pathname === '/workspace/search' ? (params.get('q') ?? '') : '');

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const shortcut = (e.key === 'k' && (e.ctrlKey || e.metaKey)) || (e.key === '/' && !typing(e.target) && !e.ctrlKey && !e.metaKey && !e.altKey);
      if (!shortcut) return;
      e.preventDefault();
      input.current?.focus();
      input.current?.select();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);

  return (
    <form
      role="search"
      className="search-box"
      onSubmit={(e) => {
        e.preventDefault();
        const q = value.trim();
        if (q) navigate(`/workspace/search?q=${encodeURIComponent(q)}`);
      }}
    >
      <input
        ref={input}
        type="search"
        aria-label="Search the workspace"
        placeholder="Search maps, dashboards, data…  ( / )"
        value={value}
        maxLength={200}
        onChange={(e) => setValue(e.target.value)}
        onKeyDown={(e) => e.key === 'Escape' && input.current?.blur()}
      />
    </form>
  );
}
