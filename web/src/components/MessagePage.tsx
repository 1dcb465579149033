import type { ReactNode } from 'react';
import { BrandMark } from './ui.tsx';

/** A whole page that only says something (not found, not available), under the brand mark. */
export function MessagePage({ title, children }: { title: string; children: ReactNode }) {
  return (
    <main className="message-page">
      <div>
        <BrandMark />
      </div>
      <h1>{title}</h1>
      {children}
    </main>
  );
}
