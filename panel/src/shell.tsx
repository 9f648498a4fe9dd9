import type { ComponentChildren } from 'preact'

export interface NavItem {
  path: string
  label: string
}

/** The frame of every signed-in screen: a skip link, the title, the navigation and who is signed in. */
export function Shell({ title, who, nav, route, onSignOut, children }: { title: string; who: string; nav: NavItem[]; route: string; onSignOut: () => void; children: ComponentChildren }) {
  return (
    <>
      <a class="skip" href="#main" onClick={(e) => (e.preventDefault(), document.getElementById('main')?.focus())}>
        Skip to content
      </a>
      <header class="top">
        <span class="brand">{title}</span>
        <nav aria-label="sections">
          {nav.map((item) => (
            <a key={item.path} href={`#${item.path}`} aria-current={route.startsWith(item.path) ? 'page' : undefined}>
              {item.label}
            </a>
          ))}
        </nav>
        <span class="who">
          {who}{' '}
          <button type="button" onClick={onSignOut}>
            Sign out
          </button>
        </span>
      </header>
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </>
  )
}
