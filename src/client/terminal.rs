//! The terminal `tail` draws on.

use crate::render::screen::Size;

/// Standard output's terminal size now (asked at every redraw, so a resize takes effect at the
/// next one); 24 × 80 when it cannot be read.
pub fn stdout_size() -> Size {
    let mut ws = libc::winsize {
        ws_row: 0,
        ws_col: 0,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: TIOCGWINSZ writes one `winsize` through the pointer, which is valid and exclusive
    // for the call; a failure leaves it zeroed.
    #[expect(unsafe_code, reason = "see the SAFETY note")]
    let ok = unsafe { libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut ws) } == 0;
    if ok && ws.ws_row > 0 && ws.ws_col > 0 {
        Size {
            rows: usize::from(ws.ws_row),
            cols: usize::from(ws.ws_col),
        }
    } else {
        Size { rows: 24, cols: 80 }
    }
}
