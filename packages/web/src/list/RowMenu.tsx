import { useEffect, useId, useLayoutEffect, useRef, useState, type KeyboardEvent } from 'react';

export interface RowMenuItem {
  label: string;
  /** The item's accessible name, with the record's so each row's items are told apart ("Rename Harbor traffic"). */
  aria?: string;
  danger?: boolean;
  onSelect: () => void;
}

/**
 * A row's actions behind one "Actions" button (the WAI-ARIA menu button pattern): a row stays narrow whatever
 * it offers, so the list fits the window. The menu is placed `fixed` under (or above) its button, which keeps it
 * out of the table's clipped frame and the page's width (and follows the button when the page scrolls); arrows, Home and End move between items, Escape and Tab
 * close it, and Escape gives the focus back to the button.
 */
export function RowMenu({ name, items }: { name: string; items: RowMenuItem[] }) {
  const [open, setOpen] = useState(false);
  const [place, setPlace] = useState<{ top: number; right: number } | null>(null);
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);
  const id = useId();

  const itemsOf = () => Array.from(menu.current?.querySelectorAll<HTMLButtonElement>('[role=menuitem]') ?? []);
  const close = (refocus: boolean) => {
    setOpen(false);
    setPlace(null);
    if (refocus) button.current?.focus();
  };

  /** Below the button unless that runs past the window's bottom and there is room above; right-aligned with it. */
  const placeMenu = () => {
    if (!button.current || !menu.current) return;
    const b = button.current.getBoundingClientRect();
    const height = menu.current.offsetHeight;
    const below = b.bottom + 4 + height <= window.innerHeight || b.top - 4 - height < 0;
    setPlace({ top: below ? b.bottom + 4 : b.top - 4 - height, right: Math.max(8, document.documentElement.clientWidth - b.right) });
  };
  useLayoutEffect(() => {
    if (open) placeMenu();
  }, [open]);
  // The first item takes the focus once the menu is placed (a hidden element cannot hold it).
  useEffect(() => {
    if (open && place && !menu.current?.contains(document.activeElement)) itemsOf()[0]?.focus();
  }, [open, place]);

  useEffect(() => {
    if (!open) return undefined;
    // A click elsewhere closes it; the page scrolling or the window resizing moves it with its button.
    const outside = (e: Event) => {
      if (!menu.current?.contains(e.target as Node) && !button.current?.contains(e.target as Node)) close(false);
    };
    document.addEventListener('pointerdown', outside);
    window.addEventListener('scroll', placeMenu, true);
    window.addEventListener('resize', placeMenu);
    return () => {
      document.removeEventListener('pointerdown', outside);
      window.removeEventListener('scroll', placeMenu, true);
      window.removeEventListener('resize', placeMenu);
    };
  }, [open]);

  const onKey = (e: KeyboardEvent) => {
    const all = itemsOf();
    const at = all.indexOf(document.activeElement as HTMLButtonElement);
    const go = (i: number) => all[(i + all.length) % all.length]?.focus();
    if (e.key === 'ArrowDown') go(at + 1);
    else if (e.key === 'ArrowUp') go(at - 1);
    else if (e.key === 'Home') go(0);
    else if (e.key === 'End') go(all.length - 1);
    else if (e.key === 'Escape') close(true);
    else if (e.key === 'Tab') close(false);
    else return;
    if (e.key !== 'Tab') e.preventDefault();
  };

  if (items.length === 0) return null;
  return (
    <>
      <button
        ref={button}
        type="button"
        className="button button-small row-menu-button"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? id : undefined}
        aria-label={`Actions for ${name}`}
        onClick={() => (open ? close(false) : setOpen(true))}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown' && !open) {
            e.preventDefault();
            setOpen(true);
          }
        }}
      >
        Actions <span aria-hidden="true">▾</span>
      </button>
      {open && (
        <div
          ref={menu}
          id={id}
          role="menu"
          aria-label={`Actions for ${name}`}
          className="menu row-menu"
          style={place ? { top: place.top, right: place.right } : { visibility: 'hidden' }}
          onKeyDown={onKey}
        >
          {items.map((item) => (
            <button
              key={item.label}
              type="button"
              role="menuitem"
              tabIndex={-1}
              className={`menu-item${item.danger ? ' danger' : ''}`}
              aria-label={item.aria ?? `${item.label} ${name}`}
              onClick={() => {
                close(true);
                item.onSelect();
              }}
            >
              {item.label}
            </button>
          ))}
        </div>
      )}
    </>
  );
}
