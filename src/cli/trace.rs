//! `complete --trace FILE.csv` and `--plot FILE.svg`: the run's free rows over time, by
//! stage, with its restarts and dead ends, sampled from the library's progress meter.

use super::Error;
use nqueens::format::{AtomicFile, ErrorKind, FormatError};
use nqueens::progress::{Reading, Stage, meter};
use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How often the meter is looked at.
const PERIOD: Duration = Duration::from_millis(1);
/// The most samples kept (a run of days at one change per millisecond would not fit).
const MAX_SAMPLES: usize = 1 << 20;

/// The meter at one moment.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Sample {
    seconds: f64,
    stage: Stage,
    free_rows: u64,
    restarts: u64,
    dead_ends: u64,
    rows_read: u64,
    rows_written: u64,
    conflicts: u64,
}

/// Samples the meter on a thread of its own until [`Recorder::finish`].
pub(crate) struct Recorder {
    stop: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<Vec<Sample>>,
}

impl Recorder {
    /// Starts sampling: a sample is kept at every stage change (from the meter's log, so
    /// that no stage is missed however short), whenever a count changed, and at least
    /// every 100 ms.
    pub(crate) fn start() -> Recorder {
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = stop.clone();
        let m = meter();
        // The starting point is read before stages are logged, so that no logged reading
        // precedes it (the sampling thread may start after the run's first stages).
        let t0 = Instant::now();
        let zero = m.read();
        m.log_stages(true);
        let thread = std::thread::spawn(move || {
            let sample = |r: Reading| Sample {
                seconds: r.at.saturating_duration_since(t0).as_secs_f64(),
                stage: r.stage,
                free_rows: r.free_rows,
                restarts: r.restarts.saturating_sub(zero.restarts),
                dead_ends: r.dead_ends.saturating_sub(zero.dead_ends),
                rows_read: r.rows_read.saturating_sub(zero.rows_read),
                rows_written: r.rows_written.saturating_sub(zero.rows_written),
                conflicts: r.conflicts,
            };
            let mut samples = vec![sample(zero)];
            loop {
                let done = stopped.load(Ordering::SeqCst);
                // The log first, then the meter: a change logged after the meter was
                // read last time is placed where it belongs in time.
                let changes = m.take_stage_log();
                let s = sample(m.read());
                for change in changes.into_iter().map(sample) {
                    if samples.len() < MAX_SAMPLES {
                        let at = samples.partition_point(|x| x.seconds <= change.seconds);
                        samples.insert(at, change);
                    }
                }
                let last = samples.last().expect("one at least");
                let changed = (s.stage, s.free_rows, s.restarts, s.dead_ends, s.conflicts)
                    != (
                        last.stage,
                        last.free_rows,
                        last.restarts,
                        last.dead_ends,
                        last.conflicts,
                    );
                if (changed || s.seconds - last.seconds >= 0.1 || done)
                    && samples.len() < MAX_SAMPLES
                {
                    samples.push(s);
                }
                if done {
                    m.log_stages(false);
                    return samples;
                }
                std::thread::sleep(PERIOD);
            }
        });
        Recorder { stop, thread }
    }

    /// Stops sampling; returns the samples, the last taken now.
    pub(crate) fn finish(self) -> Vec<Sample> {
        self.stop.store(true, Ordering::SeqCst);
        self.thread.join().expect("the sampler does not panic")
    }
}

/// Writes the samples as CSV (a header line, then one line per sample). `conflicts` is the
/// repair phase's count of diagonal conflicts (0 outside it).
pub(crate) fn write_csv(path: &Path, samples: &[Sample]) -> Result<(), Error> {
    let mut text = String::from(
        "seconds,stage,free_rows,restarts,dead_ends,rows_read,rows_written,conflicts\n",
    );
    for s in samples {
        text += &format!(
            "{:.6},{},{},{},{},{},{},{}\n",
            s.seconds,
            s.stage.name(),
            s.free_rows,
            s.restarts,
            s.dead_ends,
            s.rows_read,
            s.rows_written,
            s.conflicts
        );
    }
    publish(path, text.as_bytes())
}

/// Draws the free rows over time, one colour per stage, restarts and dead ends marked on
/// the time axis, as SVG.
pub(crate) fn write_svg(path: &Path, samples: &[Sample], title: &str) -> Result<(), Error> {
    let svg = draw(samples, title).map_err(|e| {
        Error::Format(FormatError::new(
            path,
            ErrorKind::Mismatch(format!("cannot draw the plot: {e}")),
        ))
    })?;
    publish(path, svg.as_bytes())
}

/// The stages a plot shows, with their colours.
const STAGES: [(Stage, plotters::style::RGBColor); 10] = [
    (Stage::Input, plotters::style::RGBColor(120, 120, 120)),
    (Stage::Certificates, plotters::style::RGBColor(140, 86, 75)),
    (Stage::Pairing, plotters::style::RGBColor(31, 119, 180)),
    (Stage::Scatter, plotters::style::RGBColor(255, 127, 14)),
    (Stage::Endgame, plotters::style::RGBColor(44, 160, 44)),
    (Stage::Exact, plotters::style::RGBColor(148, 103, 189)),
    (Stage::Repair, plotters::style::RGBColor(214, 39, 40)),
    (Stage::Chains, plotters::style::RGBColor(188, 189, 34)),
    (Stage::ClosedForm, plotters::style::RGBColor(23, 190, 207)),
    (Stage::Output, plotters::style::RGBColor(23, 190, 207)),
];

fn draw(samples: &[Sample], title: &str) -> Result<String, Box<dyn std::error::Error>> {
    use plotters::prelude::*;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (960, 540)).into_drawing_area();
        root.fill(&WHITE)?;
        let t_max = samples.last().map_or(1.0, |s| s.seconds).max(1e-3);
        let y_max = samples
            .iter()
            .map(|s| s.free_rows.max(s.conflicts))
            .max()
            .unwrap_or(1)
            .max(1) as f64;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(0.0..t_max * 1.02, (0.8..y_max * 1.5).log_scale())?;
        chart
            .configure_mesh()
            .x_desc("seconds")
            .y_desc("free rows; conflicts in repair (0 drawn at 1)")
            .y_label_formatter(&|y| format!("{y:.0}"))
            .draw()?;
        // Free rows are known once the input is read: the input stage is drawn at that level.
        let known = samples
            .iter()
            .find(|s| !matches!(s.stage, Stage::Idle | Stage::Input))
            .map_or(0, |s| s.free_rows);
        let level = |s: &Sample| {
            let rows = if matches!(s.stage, Stage::Idle | Stage::Input) {
                known
            } else if s.stage == Stage::Repair {
                s.conflicts
            } else {
                s.free_rows
            };
            rows.max(1) as f64
        };
        for (stage, colour) in STAGES {
            let stretches = stretches(samples, stage, level);
            let mut labelled = false;
            for stretch in stretches {
                let series = chart.draw_series(LineSeries::new(stretch, colour.stroke_width(2)))?;
                if !labelled {
                    series
                        .label(stage.name())
                        .legend(move |(x, y)| PathElement::new([(x, y), (x + 18, y)], colour));
                    labelled = true;
                }
            }
        }
        // Restarts (red) and dead ends (black) as ticks just above the time axis.
        let mut marks = Vec::new();
        for w in samples.windows(2) {
            if w[1].restarts > w[0].restarts {
                marks.push((w[1].seconds, RED));
            }
            if w[1].dead_ends > w[0].dead_ends {
                marks.push((w[1].seconds, BLACK));
            }
        }
        chart.draw_series(
            marks
                .into_iter()
                .map(|(t, c)| Cross::new((t, 0.9), 4, c.stroke_width(1))),
        )?;
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .position(SeriesLabelPosition::UpperRight)
            .draw()?;
        let last = samples.last().copied();
        if let Some(s) = last {
            root.draw(&Text::new(
                format!(
                    "{} restarts, {} dead ends (x marks: red restarts, black dead ends)",
                    s.restarts, s.dead_ends
                ),
                (90, 515),
                ("sans-serif", 13),
            ))?;
        }
        root.present()?;
    }
    Ok(svg)
}

/// The stretches of `stage` as lines of (seconds, level): one line per stretch, so that a
/// stage met again after a restart does not join its stretches across the others; each
/// starts where the previous stage left off.
fn stretches(
    samples: &[Sample],
    stage: Stage,
    level: impl Fn(&Sample) -> f64,
) -> Vec<Vec<(f64, f64)>> {
    let mut stretches: Vec<Vec<(f64, f64)>> = Vec::new();
    let mut previous: Option<Stage> = None;
    for (i, s) in samples.iter().enumerate() {
        if s.stage == stage {
            if previous != Some(stage) {
                let from = if i > 0 { &samples[i - 1] } else { s };
                stretches.push(vec![(s.seconds, level(from))]);
            }
            let last = stretches.last_mut().expect("pushed above");
            last.push((s.seconds, level(s)));
        }
        previous = Some(s.stage);
    }
    stretches
}

fn publish(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    let mut f = AtomicFile::create(path)?;
    f.file()
        .write_all(bytes)
        .map_err(|e| FormatError::new(path, ErrorKind::Write(e)))?;
    f.commit()?;
    Ok(())
}
