/** The panel page (replaced by the full panel below in this module's next revision). */
export const PANEL_HTML = '<!doctype html><title>a2a-hub</title><p>a2a-hub panel</p>';
