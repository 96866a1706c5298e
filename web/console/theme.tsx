// The console's colour theme: the system's (prefers-color-scheme, style.css) unless the person chose
// light or dark in the header, a choice kept in localStorage and set as data-theme on <html>.
import { useState } from 'preact/hooks';

export type Theme = 'system' | 'light' | 'dark';

const themeKey = 'platform-console.theme';

function storedTheme(): Theme {
  try {
    const value = localStorage.getItem(themeKey);
    return value === 'light' || value === 'dark' ? value : 'system';
  } catch {
    return 'system'; // storage refused (a privacy setting): the system's theme
  }
}

function applyTheme(theme: Theme): void {
  if (theme === 'system') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
}

// Applied when the console's script loads, before its first render.
applyTheme(storedTheme());

export function ThemeChoice() {
  const [theme, setTheme] = useState<Theme>(storedTheme);
  return (
    <label class="theme-choice">
      <span class="theme-label">Theme</span>
      <select
        value={theme}
        onChange={(event) => {
          const next = (event.currentTarget as HTMLSelectElement).value as Theme;
          setTheme(next);
          applyTheme(next);
          try {
            if (next === 'system') localStorage.removeItem(themeKey);
            else localStorage.setItem(themeKey, next);
          } catch {
            // not kept: the choice lasts for this page only
          }
        }}
      >
        <option value="system">System</option>
        <option value="light">Light</option>
        <option value="dark">Dark</option>
      </select>
    </label>
  );
}
