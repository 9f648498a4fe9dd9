import type { ComponentChildren } from 'preact'
import { useState } from 'preact/hooks'

export interface NavItem {
  path: string
  label: string
}

/**
 * The frame of every signed-in screen: a skip link, the title, the navigation and who is signed in.
 * On a phone the navigation folds behind a Menu button, so the page starts on the screen, not below ten links.
 */
export function Shell({ title, who, nav, route, onSignOut, children }: { title: string; who: string; nav: NavItem[]; route: string; onSignOut: () => void; children: ComponentChildren }) {
  // The menu is open on the page it was opened on: a new route folds it in the same render that shows the new page.
  const [openOn, setOpenOn] = useState<string | null>(null)
  const open = openOn === route
  return (
    <>
      <a class="skip" href="#main" onClick={(e) => (e.preventDefault(), document.getElementById('main')?.focus())}>
        Skip to content
      </a>
      <header class="top">
        <span class="brand">{title}</span>
        <button type="button" class="menu" aria-expanded={open} aria-controls="sections" onClick={() => setOpenOn(open ? null : route)}>
          Menu
        </button>
        <nav id="sections" aria-label="sections" class={open ? 'open' : undefined}>
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
