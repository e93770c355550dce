import { useEffect, useRef, useState } from 'react';
import { Navigate, NavLink, Outlet, useLocation, useNavigate, useSearchParams } from 'react-router-dom';
import { useSession, useUser } from './session';
import { Brand } from './ui';
import { SearchBox } from './SearchBox';
import { QuotaBanner } from './QuotaBanner';

interface NavItem {
  to: string;
  label: string;
  /** Active on this path only, not on the paths below it (Home is /workspace, the parent of every list). */
  end?: boolean;
}
const NAV: { title: string; items: NavItem[]; admin?: boolean }[] = [
  {
    title: 'Build',
    items: [
      { to: '/workspace', label: 'Home', end: true },
      { to: '/workspace/maps', label: 'Maps' },
      { to: '/workspace/dashboards', label: 'Dashboards' },
      { to: '/workspace/workbooks', label: 'Workbooks' },
      { to: '/workspace/projects', label: 'Projects' },
      { to: '/analytics/foot-traffic/audience-insight', label: 'Analytics' },
    ],
  },
  {
    title: 'Data',
    items: [
      { to: '/workspace/datasets', label: 'Datasets' },
      { to: '/workspace/connectors', label: 'Connectors' },
      { to: '/workspace/queries', label: 'Saved queries' },
      { to: '/workspace/jobs', label: 'Jobs' },
    ],
  },
  {
    title: 'Assets',
    items: [
      { to: '/workspace/basemaps', label: 'Basemaps' },
      { to: '/workspace/colors', label: 'Colors' },
      { to: '/workspace/tags', label: 'Tags' },
    ],
  },
  {
    title: 'Admin',
    admin: true,
    items: [
      { to: '/workspace/admin/organizations', label: 'Organizations' },
      { to: '/workspace/admin/users', label: 'Users' },
      { to: '/workspace/admin/invite', label: 'Invite people' },
      { to: '/workspace/admin/published-maps', label: 'Published maps' },
      { to: '/workspace/admin/ownership', label: 'Ownership' },
      { to: '/workspace/admin/quotas', label: 'Quotas and seats' },
      { to: '/workspace/admin/audit-log', label: 'Audit log' },
      { to: '/workspace/admin/refused-connections', label: 'Refused connections' },
      { to: '/workspace/admin/client-errors', label: 'Client errors' },
      { to: '/workspace/admin/legal', label: 'Legal agreements' },
      { to: '/workspace/admin/history', label: 'Version history' },
    ],
  },
];

/** Renders its children only for a signed-in user; others go to sign-in and come back after. */
export function RequireUser({ children }: { children: JSX.Element }) {
  const { user, loading } = useSession();
  const location = useLocation();
  if (loading) return <div className="splash" role="status">Loading your workspace…</div>;
  if (!user) return <Navigate to="/sign-in" replace state={{ from: location.pathname + location.search }} />;
  return children;
}

function UserMenu() {
  const user = useUser();
  const { signOut } = useSession();
  const navigate = useNavigate();
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    const close = (e: MouseEvent) => !ref.current?.contains(e.target as Node) && setOpen(false);
    const escape = (e: KeyboardEvent) => e.key === 'Escape' && setOpen(false);
    document.addEventListener('mousedown', close);
    document.addEventListener('keydown', escape);
    return () => {
      document.removeEventListener('mousedown', close);
      document.removeEventListener('keydown', escape);
    };
  }, [open]);
  const initials = user.name
    .split(/\s+/)
    .map((w) => w.charAt(0))
    .join('')
    .slice(0, 2)
    .toUpperCase();
  return (
    <div className="user-menu" ref={ref}>
      <button type="button" className="user-button" aria-haspopup="true" aria-expanded={open} aria-label={`Account of ${user.name}`} onClick={() => setOpen((o) => !o)}>
        <span className="avatar" aria-hidden="true">
          {initials}
        </span>
        <span className="user-name" title={user.name}>{user.name}</span>
      </button>
      {open && (
        <div className="menu" role="group" aria-label="Account">
          <div className="menu-header">
            <strong>{user.name}</strong>
            <span className="muted">{user.email}</span>
            {user.organization && <span className="muted">{user.organization.name}</span>}
          </div>
          {(
            [
              ['Account', () => navigate('/workspace/account')],
              ['API keys', () => navigate('/workspace/account/api-keys')],
              ['Sign out', () => void signOut().then(() => navigate('/sign-in', { replace: true }))],
            ] as const
          ).map(([label, go]) => (
            <button
              key={label}
              type="button"
              className="menu-item"
              onClick={() => {
                setOpen(false);
                go();
              }}
            >
              {label}
            </button>
          ))}
        </div>
      )}
    </div>
  );
}

/** The workspace frame: left navigation, top bar with the user menu, the page. */
export function WorkspaceLayout() {
  const user = useUser();
  const [search] = useSearchParams();
  // ?embed=1: the page alone, without the workspace's menu and top bar (a map inside a dashboard widget).
  if (search.get('embed') === '1') {
    return (
      <main className="content content-embedded">
        <Outlet />
      </main>
    );
  }
  return (
    <div className="shell">
      <aside className="sidebar">
        <Brand />
        <nav aria-label="Workspace">
          {NAV.filter((s) => !s.admin || user.isAdmin).map((section) => (
            <div key={section.title} className="nav-section">
              <h2 className="nav-title">{section.title}</h2>
              <ul>
                {section.items.map((item) => (
                  <li key={item.to}>
                    <NavLink to={item.to} end={item.end} className="nav-link">
                      {item.label}
                    </NavLink>
                  </li>
                ))}
              </ul>
            </div>
          ))}
        </nav>
      </aside>
      <div className="main">
        <header className="topbar">
          <span className="muted topbar-org" title={user.organization?.name ?? 'Personal workspace'}>{user.organization?.name ?? 'Personal workspace'}</span>
          <SearchBox />
          <UserMenu />
        </header>
        <QuotaBanner />
        <main className="content">
          <Outlet />
        </main>
      </div>
    </div>
  );
}
