//! The PNG: every layer drawn by plotters' bitmap backend on one RGB buffer, text through
//! [`Lettered`], a backend that wraps it and writes text with the project's bitmap font (plotters
//! draws no text of its own without a TrueType font, and poolshark ships none), then encoded
//! with `png`.

use plotters::backend::BitMapBackend;
use plotters::prelude::DrawingBackend;
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind, FontStyle,
};

use super::draw::{bitmap_scale, draw, layers, Layout, WIDTH};
use super::font;
use super::picture::Picture;

/// The bitmap backend with text in the bitmap font.
struct Lettered<'a> {
    inner: BitMapBackend<'a>,
}

type Failed<'a> = DrawingErrorKind<<BitMapBackend<'a> as DrawingBackend>::ErrorType>;

impl<'a> DrawingBackend for Lettered<'a> {
    type ErrorType = <BitMapBackend<'a> as DrawingBackend>::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.inner.get_size()
    }

    fn ensure_prepared(&mut self) -> Result<(), Failed<'a>> {
        self.inner.ensure_prepared()
    }

    fn present(&mut self) -> Result<(), Failed<'a>> {
        self.inner.present()
    }

    fn draw_pixel(&mut self, p: BackendCoord, c: BackendColor) -> Result<(), Failed<'a>> {
        self.inner.draw_pixel(p, c)
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), Failed<'a>> {
        self.inner.draw_line(from, to, style)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        a: BackendCoord,
        b: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), Failed<'a>> {
        self.inner.draw_rect(a, b, style, fill)
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), Failed<'a>> {
        self.inner.draw_path(path, style)
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        c: BackendCoord,
        r: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), Failed<'a>> {
        self.inner.draw_circle(c, r, style, fill)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), Failed<'a>> {
        self.inner.fill_polygon(vert, style)
    }

    fn draw_text<T: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &T,
        pos: BackendCoord,
    ) -> Result<(), Failed<'a>> {
        let colour = style.color();
        if colour.alpha == 0.0 {
            return Ok(());
        }
        let scale = bitmap_scale(style.size());
        let (w, h) = font::measure(text, scale);
        let (w, h) = (w as i32, h as i32);
        let anchor = style.anchor();
        let x0 = pos.0
            - match anchor.h_pos {
                HPos::Left => 0,
                HPos::Center => w / 2,
                HPos::Right => w,
            };
        let y0 = pos.1
            - match anchor.v_pos {
                VPos::Top => 0,
                VPos::Center => h / 2,
                VPos::Bottom => h,
            };
        // Bold: each glyph drawn twice, a pixel apart.
        let strokes = if matches!(style.style(), FontStyle::Bold) {
            2
        } else {
            1
        };
        let (width, height) = self.get_size();
        let mut result = Ok(());
        for dx in 0..strokes {
            font::render(text, scale, |x, y| {
                let (x, y) = (x0 + x + dx, y0 + y);
                if result.is_ok() && x >= 0 && y >= 0 && x < width as i32 && y < height as i32 {
                    result = self.inner.draw_pixel((x, y), colour);
                }
            });
        }
        result
    }

    fn estimate_text_size<T: BackendTextStyle>(
        &self,
        text: &str,
        style: &T,
    ) -> Result<(u32, u32), Failed<'a>> {
        Ok(font::measure(text, bitmap_scale(style.size())))
    }
}

/// The picture's pixels, RGB, and its size.
pub fn pixels(p: &Picture) -> Result<(Vec<u8>, (u32, u32)), String> {
    let lay = Layout::of(p);
    let size = (WIDTH, lay.height);
    let mut buf = vec![0xffu8; size.0 as usize * size.1 as usize * 3];
    {
        let mut db = Lettered {
            inner: BitMapBackend::with_buffer(&mut buf, size),
        };
        for l in layers(p) {
            draw(&mut db, p, &lay, &l)?;
        }
        db.present().map_err(|e| e.to_string())?;
    }
    Ok((buf, size))
}

pub fn render(p: &Picture) -> Result<Vec<u8>, String> {
    let (buf, (w, h)) = pixels(p)?;
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, w, h);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        let mut writer = enc.write_header().map_err(|e| e.to_string())?;
        writer.write_image_data(&buf).map_err(|e| e.to_string())?;
        writer.finish().map_err(|e| e.to_string())?;
    }
    Ok(out)
}
