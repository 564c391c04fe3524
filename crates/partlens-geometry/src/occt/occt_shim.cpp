// The C++ side of the `occt` feature: reads a STEP or IGES file with OpenCASCADE (7.4 to 7.7, the
// library names before 7.8), heals the shape (ShapeFix_Shape), meshes it with BRepMesh and hands the
// triangles back through a plain C interface (src/occt/mod.rs is the Rust side). A shape without
// any face but with edges (an IGES of curves only) comes back instead as polylines: every edge
// discretised with GCPnts_TangentialDeflection at the faces' deflection; the Rust side draws them.
//
// Nothing may escape to Rust but return codes: every OpenCASCADE call runs inside try/catch, and a
// failure comes back as a message in the caller's buffer. OpenCASCADE's messenger printers are
// removed once, so reading prints nothing on the console. The deadline is enforced through a
// progress indicator whose UserBreak() says "stop" once it has passed: transfer, healing and
// meshing all poll it.

#include <algorithm>
#include <cmath>
#include <sstream>

#include <BRepAdaptor_Curve.hxx>
#include <BRepBndLib.hxx>
#include <Bnd_Box.hxx>
#include <GCPnts_TangentialDeflection.hxx>
#include <IFSelect_ReturnStatus.hxx>
#include <IGESControl_Reader.hxx>
#include <Precision.hxx>
#include <STEPControl_Reader.hxx>
#include <ShapeFix_Shape.hxx>
#include <Standard_Failure.hxx>
#include <TopExp.hxx>
#include <TopTools_IndexedMapOfShape.hxx>
#include <TopoDS_Edge.hxx>

#include "occt_common.hpp"

using partlens::DeadlineProgress;
using partlens::handed_over;
using partlens::set_message;
using partlens::silence_messages;

extern "C" {

// The triangles of a mesh: `vertex_count` corners as x, y, z floats, then `triangle_count`
// triangles as three corner indices each. A shape without faces comes back as polylines instead
// (no triangles): `line_point_count` points as x, y, z floats, one polyline after the other,
// `line_count` of them, `line_lengths[i]` points each (at least 2). Owned by the shim; give it back
// with partlens_occt_free.
struct PartlensOcctMesh {
  float *vertices;
  size_t vertex_count;
  uint32_t *triangles;
  size_t triangle_count;
  float *line_points;
  size_t line_point_count;
  size_t *line_lengths;
  size_t line_count;
};

// Reads a STEP file from `length` bytes in memory (`iges_path` null) or an IGES file from the file
// at `iges_path` (OpenCASCADE 7.6 reads IGES only from files), heals and meshes it (linear
// deflection `deflection_of_size` of the bounding-box diagonal, angular 0.5 rad) within `seconds`
// and `max_triangles`. A shape with no face but with edges comes back as the edges' polylines (the
// same deflections), at most `max_segments` segments in all. Lengths come back in millimetres. On
// failure `message` holds why.
int partlens_occt_read(const uint8_t *bytes, size_t length, const char *iges_path,
                       double seconds, size_t max_triangles, size_t max_segments,
                       double deflection_of_size, struct PartlensOcctMesh *out, char *message,
                       size_t message_length) {
  if (out == nullptr) {
    return PARTLENS_OCCT_FAILED;
  }
  out->vertices = nullptr;
  out->vertex_count = 0;
  out->triangles = nullptr;
  out->triangle_count = 0;
  out->line_points = nullptr;
  out->line_point_count = 0;
  out->line_lengths = nullptr;
  out->line_count = 0;
  silence_messages();
  const auto deadline =
      std::chrono::steady_clock::now() +
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          std::chrono::duration<double>(seconds));
  Handle(DeadlineProgress) progress = new DeadlineProgress(deadline);
  try {
    TopoDS_Shape shape;
    if (iges_path != nullptr) {
      IGESControl_Reader reader;
      if (reader.ReadFile(iges_path) != IFSelect_RetDone) {
        set_message(message, message_length, "OpenCASCADE cannot read the IGES file");
        return PARTLENS_OCCT_UNREADABLE;
      }
      reader.TransferRoots(progress->Start());
      shape = reader.OneShape();
    } else {
      std::string text(reinterpret_cast<const char *>(bytes), length);
      std::istringstream stream(text);
      STEPControl_Reader reader;
      if (reader.ReadStream("model.step", stream) != IFSelect_RetDone) {
        set_message(message, message_length, "OpenCASCADE cannot read the STEP file");
        return PARTLENS_OCCT_UNREADABLE;
      }
      reader.TransferRoots(progress->Start());
      shape = reader.OneShape();
    }
    if (progress->expired()) {
      return PARTLENS_OCCT_OUT_OF_TIME;
    }
    if (shape.IsNull()) {
      set_message(message, message_length, "OpenCASCADE found no shape in the file");
      return PARTLENS_OCCT_UNREADABLE;
    }
    Handle(ShapeFix_Shape) healing = new ShapeFix_Shape(shape);
    healing->Perform(progress->Start());
    shape = healing->Shape();
    if (progress->expired()) {
      return PARTLENS_OCCT_OUT_OF_TIME;
    }

    Bnd_Box box;
    BRepBndLib::Add(shape, box);
    if (box.IsVoid()) {
      set_message(message, message_length, "the shape has no extent");
      return PARTLENS_OCCT_UNREADABLE;
    }
    const double diagonal = std::sqrt(box.SquareExtent());
    const double deflection = std::max(diagonal * deflection_of_size, 1e-6);
    const double angle = partlens::ANGULAR_DEFLECTION;
    partlens::mesh_shape(shape, deflection, progress->Start());
    if (progress->expired()) {
      return PARTLENS_OCCT_OUT_OF_TIME;
    }

    std::vector<float> vertices;
    std::vector<uint32_t> triangles;
    if (!partlens::append_triangles(shape, vertices, triangles, max_triangles)) {
      set_message(message, message_length,
                  "the mesh would have more than " + std::to_string(max_triangles) +
                      " triangles");
      return PARTLENS_OCCT_TOO_MANY_TRIANGLES;
    }
    if (!triangles.empty()) {
      out->vertices = handed_over(vertices);
      out->triangles = handed_over(triangles);
      if (out->vertices == nullptr || out->triangles == nullptr) {
        delete[] out->vertices;
        delete[] out->triangles;
        out->vertices = nullptr;
        out->triangles = nullptr;
        set_message(message, message_length, "out of memory for the mesh");
        return PARTLENS_OCCT_FAILED;
      }
      out->vertex_count = vertices.size() / 3;
      out->triangle_count = triangles.size() / 3;
      return PARTLENS_OCCT_OK;
    }

    // No face meshed. A shape with faces stays refused (a STEP file then goes on to the pure-Rust
    // reader); a shape of curves only comes back as its edges' polylines.
    if (TopExp_Explorer(shape, TopAbs_FACE).More()) {
      set_message(message, message_length, "no face of the shape could be meshed");
      return PARTLENS_OCCT_UNREADABLE;
    }
    TopTools_IndexedMapOfShape edges; // each edge once, however many wires share it
    TopExp::MapShapes(shape, TopAbs_EDGE, edges);
    std::vector<float> points;
    std::vector<size_t> lengths;
    size_t segments = 0;
    for (Standard_Integer index = 1; index <= edges.Extent(); ++index) {
      if (progress->expired()) {
        return PARTLENS_OCCT_OUT_OF_TIME;
      }
      const TopoDS_Edge &edge = TopoDS::Edge(edges(index));
      if (BRep_Tool::Degenerated(edge) || !BRep_Tool::IsGeometric(edge)) {
        continue;
      }
      std::vector<float> polyline;
      try {
        // The adaptor applies the edge's location and range.
        BRepAdaptor_Curve curve(edge);
        if (Precision::IsInfinite(curve.FirstParameter()) ||
            Precision::IsInfinite(curve.LastParameter())) {
          continue;
        }
        GCPnts_TangentialDeflection sampled(curve, angle, deflection, 2);
        for (Standard_Integer at = 1; at <= sampled.NbPoints(); ++at) {
          const gp_Pnt point = sampled.Value(at);
          polyline.push_back(static_cast<float>(point.X()));
          polyline.push_back(static_cast<float>(point.Y()));
          polyline.push_back(static_cast<float>(point.Z()));
        }
      } catch (const Standard_Failure &) {
        continue; // a curve OpenCASCADE cannot evaluate is left out of the drawing
      }
      const size_t count = polyline.size() / 3;
      if (count < 2) {
        continue;
      }
      segments += count - 1;
      if (segments > max_segments) {
        set_message(message, message_length,
                    "the curves would be drawn with more than " + std::to_string(max_segments) +
                        " line segments");
        return PARTLENS_OCCT_TOO_MANY_TRIANGLES;
      }
      points.insert(points.end(), polyline.begin(), polyline.end());
      lengths.push_back(count);
    }
    if (lengths.empty()) {
      set_message(message, message_length,
                  TopExp_Explorer(shape, TopAbs_VERTEX).More()
                      ? "the model holds only points (no surface and no curve to draw)"
                      : "the model holds no surface and no curve to draw");
      return PARTLENS_OCCT_UNREADABLE;
    }
    out->line_points = handed_over(points);
    out->line_lengths = handed_over(lengths);
    if (out->line_points == nullptr || out->line_lengths == nullptr) {
      delete[] out->line_points;
      delete[] out->line_lengths;
      out->line_points = nullptr;
      out->line_lengths = nullptr;
      set_message(message, message_length, "out of memory for the curves");
      return PARTLENS_OCCT_FAILED;
    }
    out->line_point_count = points.size() / 3;
    out->line_count = lengths.size();
    return PARTLENS_OCCT_OK;
  } catch (const Standard_Failure &failure) {
    set_message(message, message_length,
                std::string("OpenCASCADE failed: ") + failure.GetMessageString());
  } catch (const std::exception &failure) {
    set_message(message, message_length, std::string("OpenCASCADE failed: ") + failure.what());
  } catch (...) {
    set_message(message, message_length, "OpenCASCADE failed");
  }
  return PARTLENS_OCCT_FAILED;
}

// Gives back what partlens_occt_read allocated.
void partlens_occt_free(struct PartlensOcctMesh *mesh) {
  if (mesh == nullptr) {
    return;
  }
  delete[] mesh->vertices;
  delete[] mesh->triangles;
  delete[] mesh->line_points;
  delete[] mesh->line_lengths;
  mesh->vertices = nullptr;
  mesh->triangles = nullptr;
  mesh->line_points = nullptr;
  mesh->line_lengths = nullptr;
  mesh->vertex_count = 0;
  mesh->triangle_count = 0;
  mesh->line_point_count = 0;
  mesh->line_count = 0;
}

// The OpenCASCADE version the shim was built against ("7.6.3").
const char *partlens_occt_version(void) { return OCC_VERSION_COMPLETE; }

} // extern "C"
