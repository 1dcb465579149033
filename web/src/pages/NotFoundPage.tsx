import { useEffect } from 'react';
import { BrandMark } from '../components/ui.tsx';

export function NotFoundPage() {
  useEffect(() => {
    document.title = 'Page not found · Scheduling';
  }, []);
  return (
    <main className="message-page">
      <div>
        <BrandMark />
      </div>
      <h1>Page not found</h1>
      <p>There is nothing at this address. Check the link you followed, or go to your dashboard.</p>
      <p>
        <a className="btn" href="/app">
          Dashboard
        </a>
      </p>
    </main>
  );
}
