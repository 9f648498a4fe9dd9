import { render } from 'preact'
import { useRoute } from './router'
import { StudentApp } from './student/app'
import { TeacherApp } from './teacher/app'

function Home() {
  return (
    <main id="main" class="home">
      <h1>Storefront panel</h1>
      <p>Manage a store, or follow the class. The panel uses only the public API: every screen is a worked example of the calls in <a href="/docs">the API reference</a>.</p>
      <div class="cards">
        <a class="card" href="#/store">
          <strong>Student</strong>
          <span>Sign in with your RM to manage your group's store.</span>
        </a>
        <a class="card" href="#/teacher">
          <strong>Teacher</strong>
          <span>Sign in with the admin token to manage groups and see activity.</span>
        </a>
      </div>
    </main>
  )
}

function App() {
  const route = useRoute()
  if (route.startsWith('/store')) return <StudentApp route={route} />
  if (route.startsWith('/teacher')) return <TeacherApp route={route} />
  return <Home />
}

render(<App />, document.getElementById('root')!)
