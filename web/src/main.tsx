/**
 * The page's entry, kept tiny: the board arrives rendered in the HTML, and compiling and running
 * the app (~250 KB) while the browser rasterises that first frame would hold it up, on a small
 * machine by tens of milliseconds. So the app is imported once the first frame is on screen.
 */
import './styles.css';

const root = document.getElementById('root');
if (root?.firstElementChild) afterFirstPaint(() => void import('./start.js'));
else void import('./start.js');

/**
 * "Painted" means presented: the browser reports first-contentful-paint once the frame is on
 * screen, which is later than a frame callback (that only says the main thread is done with
 * it). The timeout covers a browser without paint timing and a tab opened in the background,
 * which paints nothing until shown.
 */
function afterFirstPaint(run: () => void): void {
  let done = false;
  const once = (): void => {
    if (done) return;
    done = true;
    observer?.disconnect();
    run();
  };
  let observer: PerformanceObserver | undefined;
  if (PerformanceObserver.supportedEntryTypes.includes('paint')) {
    observer = new PerformanceObserver((list) => {
      if (list.getEntriesByName('first-contentful-paint').length > 0) once();
    });
    observer.observe({ type: 'paint', buffered: true });
  } else {
    requestAnimationFrame(() => setTimeout(once, 0));
  }
  setTimeout(once, 500);
}
