// The C++ side of the `occt` feature: reads a STEP or IGES file with OpenCASCADE (7.4 to 7.7, the
// library names before 7.8), heals the shape (ShapeFix_Shape), meshes it with BRepMesh and hands the
// triangles back through a plain C interface (src/occt/mod.rs is the Rust side).
//
// Nothing may escape to Rust but return codes: every OpenCASCADE call runs inside try/catch, and a
// failure comes back as a message in the caller's buffer. OpenCASCADE's messenger printers are
// removed once, so reading prints nothing on the console. The deadline is enforced through a
// progress indicator whose UserBreak() says "stop" once it has passed: transfer, healing and
// meshing all poll it.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <new>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <BRepBndLib.hxx>
#include <BRepMesh_IncrementalMesh.hxx>
#include <BRep_Tool.hxx>
#include <Bnd_Box.hxx>
#include <IFSelect_ReturnStatus.hxx>
#include <IGESControl_Reader.hxx>
#include <IMeshTools_Parameters.hxx>
#include <Message.hxx>
#include <Message_Messenger.hxx>
#include <Message_PrinterOStream.hxx>
#include <Message_ProgressIndicator.hxx>
#include <Message_ProgressScope.hxx>
#include <Poly_Triangulation.hxx>
#include <STEPControl_Reader.hxx>
#include <ShapeFix_Shape.hxx>
#include <Standard_Failure.hxx>
#include <Standard_Version.hxx>
#include <TopAbs_Orientation.hxx>
#include <TopExp_Explorer.hxx>
#include <TopLoc_Location.hxx>
#include <TopoDS.hxx>
#include <TopoDS_Face.hxx>
#include <TopoDS_Shape.hxx>

#if OCC_VERSION_HEX < 0x070400 || OCC_VERSION_HEX >= 0x070800
#error "the occt feature links the OpenCASCADE 7.4-7.7 libraries (TKSTEP, TKIGES, ...)"
#endif

namespace {

// Says "stop" to OpenCASCADE's long operations once the deadline has passed.
class DeadlineProgress : public Message_ProgressIndicator {
public:
  explicit DeadlineProgress(std::chrono::steady_clock::time_point deadline)
      : deadline_(deadline) {}

  Standard_Boolean UserBreak() override {
    return std::chrono::steady_clock::now() >= deadline_;
  }

  void Show(const Message_ProgressScope &, const Standard_Boolean) override {}

  bool expired() const { return std::chrono::steady_clock::now() >= deadline_; }

private:
  std::chrono::steady_clock::time_point deadline_;
};

void silence_messages() {
  static std::once_flag once;
  std::call_once(once, [] {
    const Handle(Message_Messenger) &messenger = Message::DefaultMessenger();
    messenger->RemovePrinters(STANDARD_TYPE(Message_PrinterOStream));
  });
}

void set_message(char *buffer, size_t length, const std::string &text) {
  if (buffer == nullptr || length == 0) {
    return;
  }
  std::snprintf(buffer, length, "%s", text.c_str());
}

} // namespace

extern "C" {

// The triangles of a mesh: `vertex_count` corners as x, y, z floats, then `triangle_count`
// triangles as three corner indices each. Owned by the shim; give it back with
// partlens_occt_free.
struct PartlensOcctMesh {
  float *vertices;
  size_t vertex_count;
  uint32_t *triangles;
  size_t triangle_count;
};

// Outcomes of partlens_occt_read.
enum {
  PARTLENS_OCCT_OK = 0,
  PARTLENS_OCCT_UNREADABLE = 1, // the file does not read or transfers to no shape
  PARTLENS_OCCT_OUT_OF_TIME = 2,
  PARTLENS_OCCT_TOO_MANY_TRIANGLES = 3,
  PARTLENS_OCCT_FAILED = 4, // OpenCASCADE raised an exception
};

// Reads a STEP file from `length` bytes in memory (`iges_path` null) or an IGES file from the file
// at `iges_path` (OpenCASCADE 7.6 reads IGES only from files), heals and meshes it (linear
// deflection `deflection_of_size` of the bounding-box diagonal, angular 0.5 rad) within `seconds`
// and `max_triangles`. Lengths come back in millimetres. On failure `message` holds why.
int partlens_occt_read(const uint8_t *bytes, size_t length, const char *iges_path,
                       double seconds, size_t max_triangles, double deflection_of_size,
                       struct PartlensOcctMesh *out, char *message, size_t message_length) {
  if (out == nullptr) {
    return PARTLENS_OCCT_FAILED;
  }
  out->vertices = nullptr;
  out->vertex_count = 0;
  out->triangles = nullptr;
  out->triangle_count = 0;
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
    IMeshTools_Parameters parameters;
    parameters.Deflection = std::max(diagonal * deflection_of_size, 1e-6);
    parameters.Angle = 0.5;
    parameters.Relative = Standard_False;
    parameters.InParallel = Standard_False;
    BRepMesh_IncrementalMesh mesher(shape, parameters, progress->Start());
    if (progress->expired()) {
      return PARTLENS_OCCT_OUT_OF_TIME;
    }

    std::vector<float> vertices;
    std::vector<uint32_t> triangles;
    for (TopExp_Explorer faces(shape, TopAbs_FACE); faces.More(); faces.Next()) {
      const TopoDS_Face &face = TopoDS::Face(faces.Current());
      TopLoc_Location location;
      const Handle(Poly_Triangulation) &triangulation = BRep_Tool::Triangulation(face, location);
      if (triangulation.IsNull()) {
        continue;
      }
      if (triangles.size() / 3 + static_cast<size_t>(triangulation->NbTriangles()) >
          max_triangles) {
        set_message(message, message_length,
                    "the mesh would have more than " + std::to_string(max_triangles) +
                        " triangles");
        return PARTLENS_OCCT_TOO_MANY_TRIANGLES;
      }
      const gp_Trsf transform = location.Transformation();
      const size_t first = vertices.size() / 3;
      for (Standard_Integer node = 1; node <= triangulation->NbNodes(); ++node) {
        const gp_Pnt point = triangulation->Node(node).Transformed(transform);
        vertices.push_back(static_cast<float>(point.X()));
        vertices.push_back(static_cast<float>(point.Y()));
        vertices.push_back(static_cast<float>(point.Z()));
      }
      const bool reversed = face.Orientation() == TopAbs_REVERSED;
      for (Standard_Integer index = 1; index <= triangulation->NbTriangles(); ++index) {
        Standard_Integer a = 0, b = 0, c = 0;
        triangulation->Triangle(index).Get(a, b, c);
        if (reversed) {
          std::swap(b, c);
        }
        for (Standard_Integer corner : {a, b, c}) {
          triangles.push_back(static_cast<uint32_t>(first + corner - 1));
        }
      }
    }
    if (triangles.empty()) {
      set_message(message, message_length, "no face of the shape could be meshed");
      return PARTLENS_OCCT_UNREADABLE;
    }
    out->vertices = new (std::nothrow) float[vertices.size()];
    out->triangles = new (std::nothrow) uint32_t[triangles.size()];
    if (out->vertices == nullptr || out->triangles == nullptr) {
      delete[] out->vertices;
      delete[] out->triangles;
      out->vertices = nullptr;
      out->triangles = nullptr;
      set_message(message, message_length, "out of memory for the mesh");
      return PARTLENS_OCCT_FAILED;
    }
    std::memcpy(out->vertices, vertices.data(), vertices.size() * sizeof(float));
    std::memcpy(out->triangles, triangles.data(), triangles.size() * sizeof(uint32_t));
    out->vertex_count = vertices.size() / 3;
    out->triangle_count = triangles.size() / 3;
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
  mesh->vertices = nullptr;
  mesh->triangles = nullptr;
  mesh->vertex_count = 0;
  mesh->triangle_count = 0;
}

// The OpenCASCADE version the shim was built against ("7.6.3").
const char *partlens_occt_version(void) { return OCC_VERSION_COMPLETE; }

} // extern "C"
